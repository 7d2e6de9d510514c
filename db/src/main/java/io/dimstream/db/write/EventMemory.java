package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.sql.Sql;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The events an entity remembers, as one relation: the rows of its event memory
 * ({@code <table>_events}), and the version starts the memory keeps no row of.
 *
 * <p>Why two places: an in-order event that starts a version (a new key, a change) would be
 * written twice, once as the version row and once as a memory row with the same key, time, hash,
 * attributes, lineage and surrogate key; the second write cost 8-30% of a batch of such events
 * (docs/benchmarks.md, the event-memory lever). So the writer remembers it only in its version
 * row, with its arrival order in {@code event_seq} ({@link SystemColumns#eventSeq}). A version
 * row stands for its start event while its {@code event_seq} is set, it is not a delete's row (a
 * delete is always remembered: its row carries the previous version's attributes) and the memory
 * has no row at its key and start. The writer puts the event into the memory from the row before
 * anything changes the row's content (a re-assertion's type-1 values, a region's recompute) and
 * when pruning makes it an anchor; pruning clears {@code event_seq} of versions older than the
 * anchor.
 *
 * <p>The writer's probes (classify's newest and same-time event, {@link UnchangedValues}) read
 * both places by key; this relation is for readers that scan (a shadow replay's merge, pruning).
 */
public final class EventMemory {

    private EventMemory() {
    }

    /**
     * A parenthesized relation of the entity's remembered events with the memory's columns (key,
     * {@code event_time}, {@code seq}, {@code is_deleted}, {@code record_hash}, the attributes,
     * {@code source_topic}, {@code source_partition}, {@code source_offset}, {@code surrogate_key},
     * {@code pruned_to}) and {@code in_version} (true for a version start the memory has no row of).
     */
    public static String eventsSql(EntitySpec e) {
        return eventsSql(e, null);
    }

    /**
     * {@link #eventsSql(EntitySpec)} of some keys only: {@code keys} gives the condition on the key
     * of a row alias, put into both places' scans so each reads only those keys along its key index
     * (null: every key).
     */
    public static String eventsSql(EntitySpec e, UnaryOperator<String> keys) {
        return "(SELECT " + Sql.list("x", columns(e)) + ", x.pruned_to, false AS in_version FROM " + Sql.table(e.memoryTable()) + " x"
                + (keys == null ? "" : " WHERE " + keys.apply("x")) + " UNION ALL SELECT " + versionAsEvent(e, "v", "v." + Sql.ident(e.system().eventSeq()))
                + ", NULL::timestamptz, true FROM " + Sql.table(e.table()) + " v WHERE " + (keys == null ? "" : keys.apply("v") + " AND ")
                + standsForItsStart(e, "v") + ")";
    }

    /** The memory's columns but {@code pruned_to}, in its order: key, event_time, seq, is_deleted, record_hash, attributes, lineage, surrogate_key. */
    public static List<String> columns(EntitySpec e) {
        List<String> cols = new ArrayList<>(e.key());
        cols.addAll(List.of("event_time", "seq", "is_deleted", "record_hash"));
        cols.addAll(e.attributes());
        cols.addAll(List.of("source_topic", "source_partition", "source_offset", "surrogate_key"));
        return cols;
    }

    /** The version row {@code v} as the memory row of the event that started it, in {@link #columns} order, its seq {@code seq}. */
    static String versionAsEvent(EntitySpec e, String v, String seq) {
        SystemColumns sc = e.system();
        return Sql.list(v, e.key()) + ", " + v + "." + Sql.ident(sc.validFrom()) + ", " + seq + ", false, " + v + "." + Sql.ident(sc.recordHash()) + ", "
                + (e.attributes().isEmpty() ? "" : Sql.list(v, e.attributes()) + ", ") + v + "." + Sql.ident(sc.sourceTopic()) + ", " + v + "."
                + Sql.ident(sc.sourcePartition()) + ", " + v + "." + Sql.ident(sc.sourceOffset()) + ", " + v + "." + Sql.ident(sc.surrogateKey());
    }

    /** Whether the version row {@code v} stands for its start event: it records it ({@link #recordsItsStart}) and the memory has no row at its key and start. */
    static String standsForItsStart(EntitySpec e, String v) {
        return recordsItsStart(e, v) + " AND NOT EXISTS (SELECT 1 FROM " + Sql.table(e.memoryTable()) + " y WHERE " + Sql.eq("y", v, e.key())
                + " AND y.event_time = " + v + "." + Sql.ident(e.system().validFrom()) + ")";
    }

    /**
     * Whether the version row {@code v} records its start event: {@code event_seq} set and not a
     * delete's row. Probes that read the memory's row first at the same key and time (classify's
     * same-time event, {@link UnchangedValues}) need no more than this.
     */
    static String recordsItsStart(EntitySpec e, String v) {
        SystemColumns sc = e.system();
        return v + "." + Sql.ident(sc.eventSeq()) + " IS NOT NULL AND NOT " + v + "." + Sql.ident(sc.isDeleted());
    }
}
