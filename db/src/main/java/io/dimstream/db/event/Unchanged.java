package io.dimstream.db.event;

/**
 * The value of a column the source did not send: "unchanged since the event before this one".
 * Decoders put it in an event's data for Debezium's placeholder of an unchanged TOAST column
 * ({@code unavailable-value}) and for a NULL or missing attribute under {@code ignore-null-updates}.
 *
 * <p>It is never stored and never hashed as a value: the writer takes the column's value from the
 * key's event just before this one in (event time, arrival) order, the one in the event memory or
 * an earlier event of the same batch, also when the event is late and lands in the middle of
 * history ({@link io.dimstream.db.write.UnchangedValues}). With no event before it (or a delete
 * before it) the value is NULL. Until then {@link RecordHash} hashes it as a marker of its own, so
 * two events with the same known values and the same unchanged columns hash alike and differ from
 * any complete event.
 */
public enum Unchanged {
    VALUE;

    @Override
    public String toString() {
        return "<unchanged>";
    }
}
