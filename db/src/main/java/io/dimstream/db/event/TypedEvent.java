package io.dimstream.db.event;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * An event checked against its entity: values coerced to the column types, in
 * {@link io.dimstream.db.entity.EntitySpec#dataColumns()} order (key, tracked, type-1), the
 * tracked hash computed. For deletes the attribute values are null and the hash is null. An
 * attribute may be {@link Unchanged#VALUE} until the writer resolves it ({@link #partial()}); the
 * hash is then of the values with that marker.
 */
public record TypedEvent(boolean delete, Instant eventTime, List<Object> values, byte[] hash, long seq, Source source) {

    /** Whether an attribute is {@link Unchanged#VALUE}, to be taken from the event before this one. */
    public boolean partial() {
        return !delete && values.contains(Unchanged.VALUE);
    }

    /**
     * The first {@code keyColumns} values as a list that is equal, with an equal hash, for equal
     * keys: a bytea key's {@code byte[]} (equal by identity only) is wrapped in a {@link ByteBuffer}
     * (equal by content). A new, modifiable list.
     */
    public List<Object> keyIdentity(int keyColumns) {
        List<Object> id = new ArrayList<>(keyColumns + 1);
        for (int i = 0; i < keyColumns; i++) {
            Object v = values.get(i);
            id.add(v instanceof byte[] b ? ByteBuffer.wrap(b) : v);
        }
        return id;
    }
}
