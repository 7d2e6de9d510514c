package io.dimstream.db.event;

import java.time.Instant;
import java.util.List;

/**
 * An event checked against its entity: values coerced to the column types, in
 * {@link io.dimstream.db.entity.EntitySpec#dataColumns()} order (key, tracked, type-1), the
 * tracked hash computed. For deletes the attribute values are null and the hash is null.
 */
public record TypedEvent(boolean delete, Instant eventTime, List<Object> values, byte[] hash, long seq, Source source) {
}
