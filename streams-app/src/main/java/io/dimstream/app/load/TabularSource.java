package io.dimstream.app.load;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TimeTexts;
import io.dimstream.db.source.SourceRows;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The rows of a CSV file, a Parquet file or a query ({@link SourceRows}) as events of an entity:
 * each row holds the entity's columns by name, and optionally an operation column and an
 * event-time column ({@link Mapping}). The texts of date and time columns and of the time column are
 * read by {@link TimeTexts} (PostgreSQL's, Spark's, pandas' spellings; a bad one is the row's
 * rejection naming the column); other values are passed on as read, and the writer's
 * {@link io.dimstream.db.event.EventValidator} coerces them to the column types and refuses a bad
 * one naming its column, so the report gives the row number, the column and the reason.
 *
 * <p>The file's columns are checked once, before any row, against the entity's shape (its config's
 * columns and those added while running): every key, tracked and type-1 column of the config must be
 * there (a column added while running may be missing), and nothing else but the mapped operation and
 * time columns, so a misspelt header fails the load at once instead of refusing every row.
 */
public final class TabularSource implements RowSource {

    /**
     * How rows become events.
     *
     * @param opColumn   the column holding each row's operation ({@code upsert}, {@code insert},
     *                   {@code update} are upserts, {@code delete} a delete; any case), or null: every
     *                   row is an upsert
     * @param timeColumn the column holding each row's event time (a timestamp with a zone, a
     *                   timestamp without one read in the time zone given or else as UTC, or a
     *                   text {@link TimeTexts} reads), or null
     * @param fixedTime  the event time of every row when there is no time column (a slice's instant,
     *                   or {@code --event-time}); exactly one of this and {@code timeColumn} is set
     */
    public record Mapping(String opColumn, String timeColumn, Instant fixedTime) {

        public Mapping {
            if ((timeColumn == null) == (fixedTime == null)) {
                throw new IllegalArgumentException("exactly one of a time column and a fixed event time is needed");
            }
        }

        /** Every row an upsert at {@code t}: one complete snapshot slice. */
        public static Mapping slice(Instant t) {
            return new Mapping(null, null, t);
        }
    }

    private final SourceRows rows;
    private final String name;
    private final Mapping mapping;
    private final Instant loadStart;
    private final TimeTexts times;
    private final int opIndex;
    private final int timeIndex;
    /** Per source column: the entity column it fills, or null for the op and time columns. */
    private final String[] dataColumns;
    /** Per source column: the type of the entity column it fills, or null. */
    private final ColumnType[] types;

    /**
     * @param name names the input in each event's lineage (as its source topic: {@code file:NAME} for a
     *             file, {@code query} for a query) and in reports
     * @throws IllegalArgumentException when the source's columns do not fit the entity and mapping,
     *                                  naming what is missing or unknown
     */
    public TabularSource(SourceRows rows, EntitySpec entity, Mapping mapping, String name, Instant loadStart) {
        this(rows, entity, mapping, name, loadStart, new TimeTexts(null));
    }

    /** As above, texts without a UTC offset read in the zone of {@code times} ({@code --time-zone}). */
    public TabularSource(SourceRows rows, EntitySpec entity, Mapping mapping, String name, Instant loadStart, TimeTexts times) {
        ArrivalSeq.requireLoadStart(loadStart);
        this.rows = rows;
        this.name = name;
        this.mapping = mapping;
        this.loadStart = loadStart;
        this.times = times;
        List<String> cols = rows.columns();
        this.opIndex = indexOf(cols, mapping.opColumn(), "--op-column");
        this.timeIndex = indexOf(cols, mapping.timeColumn(), "--time-column");
        this.dataColumns = new String[cols.size()];
        this.types = new ColumnType[cols.size()];
        List<String> unknown = new ArrayList<>();
        for (int i = 0; i < cols.size(); i++) {
            if (i == opIndex || i == timeIndex) {
                continue;
            }
            if (entity.columns().containsKey(cols.get(i))) {
                dataColumns[i] = cols.get(i);
                types[i] = entity.type(cols.get(i));
            } else {
                unknown.add(cols.get(i));
            }
        }
        // a column added while running may be missing: an older export, or a source that stopped
        // sending it (schema-evolution: lenient carries its value on, LoadFields)
        List<String> missing = entity.dataColumns().stream().filter(c -> !cols.contains(c) && !entity.evolved().contains(c)).toList();
        if (!missing.isEmpty() || !unknown.isEmpty()) {
            throw new IllegalArgumentException(name + " does not hold the columns of entity '" + entity.name() + "': "
                    + (missing.isEmpty() ? "" : "missing " + quoted(missing) + (unknown.isEmpty() ? "" : "; "))
                    + (unknown.isEmpty() ? "" : "unknown " + quoted(unknown)
                    + " (map an operation or event time with --op-column / --time-column)")
                    + "; its columns: " + quoted(cols) + "; the entity's: " + quoted(entity.dataColumns()));
        }
    }

    private int indexOf(List<String> cols, String column, String option) {
        if (column == null) {
            return -1;
        }
        int i = cols.indexOf(column);
        if (i < 0) {
            throw new IllegalArgumentException(option + ": " + name + " has no column '" + column + "'; its columns: " + quoted(cols));
        }
        return i;
    }

    private static String quoted(List<String> names) {
        return String.join(", ", names.stream().map(n -> "'" + n + "'").toList());
    }

    @Override
    public NativeEventJson.Parsed next() throws IOException {
        long row;
        try {
            if (!rows.next()) {
                return null;
            }
            row = rows.rowNumber();
            if (row > ArrivalSeq.MAX_LOAD_LINE) {
                throw new TooManyRows(name + " has more than " + ArrivalSeq.MAX_LOAD_LINE + " rows; split it");
            }
        } catch (SQLException e) {
            throw new IOException(e.getMessage(), e);
        }
        Source source = new Source(name, null, row);
        if (rows.rejection() != null) {
            return new NativeEventJson.Parsed(null, new Rejection(source, rows.rejection()));
        }
        long seq = ArrivalSeq.ofLoad(loadStart, row).value();
        try {
            Map<String, Object> data = new LinkedHashMap<>();
            for (int i = 0; i < dataColumns.length; i++) {
                if (dataColumns[i] != null) {
                    Object raw = rows.value(i);
                    if (types[i] == ColumnType.BOOLEAN && raw instanceof String text) {
                        raw = booleanText(text);
                    }
                    try {
                        data.put(dataColumns[i], times.value(types[i], raw));
                    } catch (IllegalArgumentException e) {
                        return new NativeEventJson.Parsed(null, new Rejection(source, "column '" + dataColumns[i] + "': " + e.getMessage()));
                    }
                }
            }
            Op op = Op.UPSERT;
            if (opIndex >= 0) {
                Object v = rows.value(opIndex);
                op = op(v);
                if (op == null) {
                    return new NativeEventJson.Parsed(null, new Rejection(source, "op column '" + mapping.opColumn() + "': "
                            + (v == null ? "is empty" : "'" + v + "' is not upsert, insert, update or delete")));
                }
            }
            Instant time = mapping.fixedTime();
            String badTime = null;
            if (timeIndex >= 0) {
                Object v = rows.value(timeIndex);
                try {
                    time = v == null ? null : eventTime(v);
                    badTime = v == null ? "time column '" + mapping.timeColumn() + "' is empty" : null;
                } catch (IllegalArgumentException e) {
                    badTime = "time column '" + mapping.timeColumn() + "': " + e.getMessage();
                }
            }
            return new NativeEventJson.Parsed(new Event(op, time, data, seq, source, badTime), null);
        } catch (SQLException e) {
            throw new IOException("cannot read row " + row + ": " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e); // a column type no row of this source can have
        }
    }

    /**
     * A boolean column's text as PostgreSQL's boolean input reads it: {@code t}/{@code f} (what its
     * own CSV export writes), {@code true}/{@code false}, {@code yes}/{@code no}, {@code on}/{@code off},
     * {@code 1}/{@code 0}, in any case, blanks around ignored; any other text as it is, for the
     * validator to refuse naming it. (PostgreSQL also takes unique prefixes such as {@code tr}; a
     * file is not a prompt, so those are refused.)
     */
    static Object booleanText(String text) {
        return switch (text.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "t", "true", "yes", "on", "1" -> Boolean.TRUE;
            case "f", "false", "no", "off", "0" -> Boolean.FALSE;
            default -> text;
        };
    }

    /**
     * A row's event time from its time column: a typed instant, a typed local date-time (in the zone
     * given, else as UTC) or a text {@link TimeTexts} reads.
     *
     * @throws IllegalArgumentException with the reason
     */
    private Instant eventTime(Object v) {
        if (v instanceof String s) {
            return times.instant(s);
        }
        if (v instanceof LocalDateTime t) {
            return times.instant(t);
        }
        return (Instant) ColumnType.TIMESTAMPTZ.coerce(v);
    }

    private static Op op(Object v) {
        if (!(v instanceof String s)) {
            return null;
        }
        return switch (s.trim().toLowerCase(Locale.ROOT)) {
            case "upsert", "insert", "update" -> Op.UPSERT;
            case "delete" -> Op.DELETE;
            default -> null;
        };
    }

    @Override
    public long position() {
        return rows.rowNumber();
    }

    @Override
    public String unit() {
        return "row";
    }

    @Override
    public void close() throws IOException {
        try {
            rows.close();
        } catch (SQLException e) {
            throw new IOException(e.getMessage(), e);
        }
    }
}
