package io.dimstream.app.decode;

import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.EntityConfig;
import java.time.Instant;
import java.util.Map;

/**
 * {@code event-time: field NAME} for the formats whose row image is a map of columns (Debezium's
 * {@code after}, or {@code before} for a delete; the native formats' {@code data}): the event's time
 * is the value of field {@code NAME} of the row image, epoch milliseconds or an ISO-8601 instant
 * with offset ({@link EventTimes#of}), checked against the supported range. The field stays in the
 * row when it is a column of the entity (its history keeps it); otherwise it is taken out, since it
 * only gave the time (and would be refused as an undeclared column). A missing or unreadable value
 * is a reason for the DLQ naming it ({@code after.updated_at missing}).
 *
 * @param name the field
 * @param keep whether it is a column of the entity (it stays in the row)
 */
record TimeField(String name, boolean keep) {

    /** The entity's time field, or null when its {@code event-time} is not {@code field NAME}. */
    static TimeField of(EntityConfig entity) {
        CdcOptions.EventTime t = entity.cdc().eventTime();
        if (t.kind() != CdcOptions.EventTime.Kind.FIELD) {
            return null;
        }
        return new TimeField(t.field(), entity.columns().containsKey(t.field()));
    }

    /**
     * Reads the time from {@code row} (mutable) and, unless {@link #keep}, removes the field.
     *
     * @param image names the row image in a reason ({@code after}, {@code before}, {@code data})
     * @throws IllegalArgumentException {@code <image>.<name> missing}, or naming the bad value
     */
    Instant take(Map<String, Object> row, String image) {
        String where = image + "." + name;
        Object v = keep ? row.get(name) : row.remove(name);
        if (v == null && "before".equals(image)) {
            throw new IllegalArgumentException(where + " missing (event-time: field " + name + "; a delete's before image carries "
                    + "every column only with REPLICA IDENTITY FULL on the source table)");
        }
        return EventTimes.of(v, where);
    }
}
