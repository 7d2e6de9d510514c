package io.dimstream.db.write;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.SurrogateKey;
import io.dimstream.db.event.TypedEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;

/** A round of a batch ({@link ArrivalOrder}) into the writer's {@code ds_batch} by COPY ({@link CopyWriter}). */
final class RoundCopy {

    private RoundCopy() {
    }

    /**
     * The round into ds_batch: the events with no earlier arrival of their key in the round (every
     * event of an in-order stream) by one COPY, those with earlier arrivals by a second one that also
     * carries what those say ({@link ArrivalOrder.Arrived}).
     */
    static void copy(Connection c, EntitySpec e, WriterSql sql, List<ArrivalOrder.Arrived> events) throws SQLException {
        copyRows(c, e, sql.copyBatch, events.stream().filter(a -> !a.hasEarlier()).toList(), false);
        List<ArrivalOrder.Arrived> arrived = events.stream().filter(ArrivalOrder.Arrived::hasEarlier).toList();
        if (!arrived.isEmpty()) {
            copyRows(c, e, sql.copyArrived, arrived, true);
        }
    }

    private static void copyRows(Connection c, EntitySpec e, String copySql, List<ArrivalOrder.Arrived> events, boolean withEarlier)
            throws SQLException {
        int nKey = e.key().size();
        List<String> cols = e.dataColumns();
        List<ColumnType> types = cols.stream().map(e::type).toList();
        CopyIn in = c.unwrap(PGConnection.class).getCopyAPI().copyIn(copySql);
        try {
            CopyWriter cw = new CopyWriter(in);
            String[] keyText = new String[nKey];
            for (ArrivalOrder.Arrived a : events) {
                TypedEvent te = a.event();
                for (int i = 0; i < nKey; i++) {
                    keyText[i] = types.get(i).canonical(te.values().get(i));
                    cw.text(keyText[i]);
                }
                cw.raw(ColumnType.CANONICAL_TIMESTAMP.format(te.eventTime()))
                        .raw(Long.toString(te.seq()))
                        .raw(te.delete() ? "t" : "f")
                        .bytes(te.hash());
                for (int i = nKey; i < cols.size(); i++) {
                    cw.value(types.get(i), te.values().get(i));
                }
                Source src = te.source();
                cw.text(src == null ? null : src.topic());
                cw.raw(src == null || src.partition() == null ? null : src.partition().toString());
                cw.raw(src == null || src.offset() == null ? null : src.offset().toString());
                cw.raw(Long.toString(SurrogateKey.of(e.name(), Arrays.asList(keyText), te.eventTime())));
                // "single": the key's only event in this round (a candidate for the fast path)
                cw.raw(a.single() ? "t" : "f");
                if (withEarlier) {
                    earlier(cw, a.newest());
                    earlier(cw, a.before());
                }
                cw.endRow();
            }
            cw.finish();
        } finally {
            if (in.isActive()) {
                in.cancelCopy();
            }
        }
    }

    /** An earlier arrival as (event_time, is_deleted, record_hash, seq), or four NULLs. */
    private static void earlier(CopyWriter cw, TypedEvent te) throws SQLException {
        if (te == null) {
            cw.raw(null).raw(null).raw(null).raw(null);
        } else {
            cw.raw(ColumnType.CANONICAL_TIMESTAMP.format(te.eventTime())).raw(te.delete() ? "t" : "f").bytes(te.hash())
                    .raw(Long.toString(te.seq()));
        }
    }
}
