package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.Unchanged;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A validated event on its way from the decoder to the classifier, through the repartition topic:
 * what the classifier needs to judge it (event time, delete or the tracked hash, and a content
 * fingerprint over the op and every column, key, tracked and type-1, which tells an exact duplicate
 * from a re-assertion that only touches type-1 columns), and the change record to emit, already
 * encoded in the typed form without its class ({@link ChangeCodec#encodeUnclassified(EntitySpec,
 * TypedEvent, Map, Map)}), so the classifier splices the
 * class in ({@link #classified}) instead of parsing and re-writing the JSON.
 *
 * <p>Wire format (internal, versioned): {@code [1: version=2][1: 0 delete | 1 upsert][32: tracked
 * hash, upserts only][8: content fingerprint][8: event time, epoch micros][2: class offset]
 * [unclassified change JSON]}. No other version is read: nothing released wrote one.
 *
 * @param trackedHash null for a delete
 */
record PendingChange(long eventMicros, byte[] trackedHash, long contentFingerprint, int classOffset, byte[] unclassified) {

    private static final byte VERSION = 2;
    private static final int HASH_BYTES = 32;

    /** The business key bytes: {@link ChangeCodec#key} of the key values' canonical texts. */
    static byte[] businessKey(EntitySpec entity, TypedEvent e) {
        List<String> parts = new ArrayList<>(entity.key().size());
        for (int i = 0; i < entity.key().size(); i++) {
            parts.add(entity.type(entity.key().get(i)).canonical(e.values().get(i)));
        }
        return ChangeCodec.key(parts);
    }

    /**
     * @param classOffset {@link ChangeCodec#classOffset} of the entity's name: the same for every
     *                    event of the entity, so the caller computes it once
     * @param newColumns  columns the config does not declare, passed through for {@code new-columns:}
     *                    (column to SQL type), named in the change record for the sink to add
     * @param widened     columns whose type this task widened for the event's values, or which the
     *                    source's schema retyped (column to SQL type), named for the sink to widen
     */
    static PendingChange of(EntitySpec entity, TypedEvent e, int classOffset, Map<String, String> newColumns,
                            Map<String, String> widened) {
        List<String> columns = entity.dataColumns();
        int n = e.delete() ? entity.key().size() : columns.size();
        List<Object> fingerprintInput = new ArrayList<>(n + 1);
        fingerprintInput.add(e.delete() ? "delete" : "upsert");
        for (int i = 0; i < n; i++) {
            Object v = e.values().get(i);
            fingerprintInput.add(v == null || v == Unchanged.VALUE ? v : entity.type(columns.get(i)).canonical(v));
        }
        long fingerprint = ByteBuffer.wrap(RecordHash.of(fingerprintInput)).getLong();
        // the typed form: the sink takes the event as validated here, without validating or hashing it again
        return new PendingChange(KeyState.micros(e.eventTime()), e.hash(), fingerprint, classOffset,
                ChangeCodec.encodeUnclassified(entity, e, newColumns, widened));
    }

    boolean delete() {
        return trackedHash == null;
    }

    /** The changes-topic value of this event under its class. */
    byte[] classified(ChangeClass cls) {
        return ChangeCodec.withClass(unclassified, classOffset, cls);
    }

    byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(2 + (delete() ? 0 : HASH_BYTES) + 8 + 8 + 2 + unclassified.length);
        b.put(VERSION).put(delete() ? (byte) 0 : (byte) 1);
        if (!delete()) {
            b.put(trackedHash);
        }
        return b.putLong(contentFingerprint).putLong(eventMicros).putShort((short) classOffset).put(unclassified).array();
    }

    static PendingChange fromBytes(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte version = b.get();
        if (version != VERSION) {
            throw new IllegalStateException("pending change of unknown format version " + version);
        }
        byte[] hash = null;
        if (b.get() == 1) {
            hash = new byte[HASH_BYTES];
            b.get(hash);
        }
        long fingerprint = b.getLong();
        long micros = b.getLong();
        int offset = b.getShort() & 0xFFFF;
        return new PendingChange(micros, hash, fingerprint, offset, Arrays.copyOfRange(bytes, b.position(), bytes.length));
    }
}
