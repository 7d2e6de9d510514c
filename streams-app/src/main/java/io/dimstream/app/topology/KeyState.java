package io.dimstream.app.topology;

import io.dimstream.db.event.RecordHash;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * What the classifier remembers of one business key: the newest event's time and state (deleted,
 * or the tracked hash), and the fingerprints of the most recent {@value #MAX_FINGERPRINTS} events
 * (by arrival), so an exact re-delivery is recognised and dropped.
 *
 * <p>Serialized compactly ({@link #toBytes}): {@code [1: version=1][1: 0 deleted | 1 upsert][8: newest
 * event time, epoch micros][32: tracked hash, upserts only][2: n][n x (8: event micros, 8: content)]},
 * at most 1,070 bytes.
 *
 * @param newestHash null when the newest event is a delete
 * @param recent     oldest first
 */
record KeyState(long newestMicros, byte[] newestHash, List<Fingerprint> recent) {

    static final int MAX_FINGERPRINTS = 64;
    private static final byte VERSION = 1;
    private static final int HASH_BYTES = 32;

    /** One remembered event: its time and its content fingerprint. */
    record Fingerprint(long eventMicros, long content) {
    }

    KeyState {
        recent = List.copyOf(recent);
    }

    /**
     * Exact on purpose: every event time reaching the topology's state was validated to lie within
     * 0001..9999 ({@code EventValidator}), about 2.5e17 microseconds from the epoch at most, far
     * from overflowing a long; an overflow here would be a validation bug, and it fails loudly.
     */
    static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1_000);
    }

    boolean newestDeleted() {
        return newestHash == null;
    }

    boolean remembers(Fingerprint f) {
        return recent.contains(f);
    }

    /** The same newest event, with {@code f} remembered (the oldest forgotten beyond the bound). */
    KeyState remember(Fingerprint f) {
        return new KeyState(newestMicros, newestHash, bounded(f));
    }

    /** {@code f}'s event is the newest now. */
    KeyState advance(Fingerprint f, byte[] hash) {
        return new KeyState(f.eventMicros(), hash, bounded(f));
    }

    private List<Fingerprint> bounded(Fingerprint f) {
        List<Fingerprint> next = new ArrayList<>(recent.size() + 1);
        next.addAll(recent.size() >= MAX_FINGERPRINTS ? recent.subList(recent.size() - MAX_FINGERPRINTS + 1, recent.size()) : recent);
        next.add(f);
        return next;
    }

    byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(2 + 8 + (newestDeleted() ? 0 : HASH_BYTES) + 2 + 16 * recent.size());
        b.put(VERSION).put(newestDeleted() ? (byte) 0 : (byte) 1).putLong(newestMicros);
        if (!newestDeleted()) {
            b.put(newestHash);
        }
        b.putShort((short) recent.size());
        for (Fingerprint f : recent) {
            b.putLong(f.eventMicros()).putLong(f.content());
        }
        return b.array();
    }

    static KeyState fromBytes(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte version = b.get();
        if (version != VERSION) {
            throw new IllegalStateException("key state of unknown format version " + version);
        }
        boolean upsert = b.get() == 1;
        long newest = b.getLong();
        byte[] hash = null;
        if (upsert) {
            hash = new byte[HASH_BYTES];
            b.get(hash);
        }
        int n = b.getShort();
        List<Fingerprint> recent = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            recent.add(new Fingerprint(b.getLong(), b.getLong()));
        }
        return new KeyState(newest, hash, recent);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof KeyState k && newestMicros == k.newestMicros && Arrays.equals(newestHash, k.newestHash)
                && recent.equals(k.recent);
    }

    @Override
    public int hashCode() {
        return Objects.hash(newestMicros, Arrays.hashCode(newestHash), recent);
    }

    @Override
    public String toString() {
        return "KeyState[newestMicros=" + newestMicros + ", newest="
                + (newestDeleted() ? "DELETED" : "UPSERT(" + RecordHash.hex(newestHash) + ")")
                + ", recent=" + recent + "]";
    }
}
