package io.dimstream.db.entity;

import io.dimstream.db.sql.Sql;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One SCD2 entity: its table, business key, tracked columns (a change makes a new version) and
 * type-1 columns (overwritten in place). Immutable; validated on construction.
 *
 * @param latenessHorizon   empty means unlimited
 * @param surrogateKeyIndex whether the table dimstream creates carries a unique index on
 *                          {@code surrogate_key}, for queries that look versions up by it one at a
 *                          time. Off by default: dimstream never looks a version up by it, a join
 *                          of many facts hash-joins without it, and the surrogate key is a 64-bit
 *                          hash of entity, key and {@code valid_from}, which the primary key makes
 *                          unique. Its cost is a random B-tree insert for every version written
 *                          and every close (a close rewrites the row): ~16% of the writer's time
 *                          (docs/benchmarks.md)
 * @param modifiers         the columns declared with a type modifier ({@code varchar(n)},
 *                          {@code numeric(p,s)}), each of its column's type in {@code columns};
 *                          a column not here has its plain type
 * @param evolved           the columns added while running ({@code new-columns:}, recorded in
 *                          {@code dimstream.entity_columns}), in the order they were added: each is
 *                          at the end of {@code tracked} or of {@code type1}, after the config's own,
 *                          so the config's tracked columns keep their place in {@code record_hash}
 *                          and an evolved tracked column enters it only when it holds a value
 *                          ({@link io.dimstream.db.event.RecordHash#ofValues(List, List, List)})
 * @param tablePartitions   0: plain tables; N (2 to {@link #MAX_TABLE_PARTITIONS}): the entity table and
 *                          its event memory dimstream creates are hash-partitioned by the key into N
 *                          partitions each ({@code <table>_p0} .. and {@code <table>_events_p0} ..),
 *                          which keeps each partition's B-trees a level lower on big tables
 *                          (docs/benchmarks.md, "How cost grows"). Applies when dimstream creates
 *                          the tables (a replay's shadow rebuild creates them so); not with
 *                          {@code surrogateKeyIndex}: PostgreSQL's unique index on a partitioned
 *                          table must contain the partition key
 * @param validToCurrent    what {@code valid_to} holds on an open version (NULL or infinity): every
 *                          statement tests and writes it through {@link #openTest} and {@link #openEnd}
 * @param retention         how long history is kept ({@code history-retention}, {@code history-grain}):
 *                          {@link HistoryRetention#NONE} keeps it forever
 */
public record EntitySpec(
        String name,
        String table,
        List<String> key,
        List<String> tracked,
        List<String> type1,
        Map<String, ColumnType> columns,
        Optional<Duration> latenessHorizon,
        SystemColumns system,
        boolean surrogateKeyIndex,
        Map<String, TypeModifier> modifiers,
        Set<String> evolved,
        int tablePartitions,
        boolean transactionTime,
        ValidToCurrent validToCurrent,
        HistoryRetention retention) {

    /** The most hash partitions an entity's table may have: each is a table with its own indexes and files. */
    public static final int MAX_TABLE_PARTITIONS = 64;

    /** Columns of the event memory table besides the entity's own: no entity column may take these names. */
    public static final List<String> MEMORY_COLUMNS = List.of("event_time", "seq", "is_deleted", "record_hash",
            "source_topic", "source_partition", "source_offset", "surrogate_key", "pruned_to");

    /**
     * Every name the writer's SQL ({@code io.dimstream.db.write.WriterSql}) gives a column of its own
     * (work tables and derived columns), beside the event memory's ({@link #MEMORY_COLUMNS}): no
     * entity column may take one. {@code valid_from} and {@code valid_to} are here whatever the
     * entity's system column names: the version work table {@code ds_region_versions} has them
     * under these names. Kept here, with the check that refuses them, so that the entity needs nothing of the writer.
     */
    public static final List<String> WORK_COLUMNS = List.of(
            // ds_batch, ds_winners, ds_affected_keys, ds_region, ds_region_versions
            "single", "newest", "newest_deleted", "newest_hash", "newest_seq", "fast", "t0", "p_time", "rstart",
            "prev_exists", "prev_deleted", "prev_hash", "prev_seq", "valid_from", "valid_to", "event_seq",
            // derived in the statements
            "beyond", "dup", "mem_seq", "mem_in_version", "in_version", "win", "late", "run_start", "run_no", "no_row", "old_hash",
            "new_sk", "new_seq", "cut");

    /** The columns of {@link #supersededTable()} beside the key's: no key column may take these names. */
    public static final List<String> SUPERSEDED_COLUMNS = List.of("valid_from", "valid_to", "is_deleted", "known_from", "end_known_from",
            "known_to", "row_image");

    /**
     * PostgreSQL keeps the first 63 bytes of a longer name (NAMEDATALEN - 1) without an error:
     * the table would get another name than the config's, found at the first start and missed at
     * the next (its columns are looked up by the config's names).
     */
    public static final int MAX_IDENTIFIER_BYTES = 63;

    /** What dimstream appends to a table's name for the objects it creates beside it; the longest decides. */
    public static final List<String> TABLE_NAME_SUFFIXES = List.of("_events", "_current", "_as_of", "_pkey", "_one_open", "_superseded",
            "_valid_range", "_surrogate_key", "_events_pkey", "_events_p" + (MAX_TABLE_PARTITIONS - 1));

    /** The longest table name (without its schema) whose every derived name fits {@link #MAX_IDENTIFIER_BYTES}: 49 bytes. */
    public static final int MAX_TABLE_NAME_BYTES = MAX_IDENTIFIER_BYTES
            - TABLE_NAME_SUFFIXES.stream().mapToInt(String::length).max().orElseThrow();

    /** Used when config names no horizon. */
    public static final Duration DEFAULT_LATENESS_HORIZON = Duration.ofDays(30);

    /**
     * A builder: name, table, key, tracked and columns to set; no type-1 columns, a horizon of
     * {@link #DEFAULT_LATENESS_HORIZON}, the default system columns, no surrogate-key index, no
     * modifiers, no evolved columns unless set. The record's one constructor takes every
     * component; everything else builds with this.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this entity's components. */
    public Builder toBuilder() {
        return new Builder().name(name).table(table).key(key).tracked(tracked).type1(type1).columns(columns)
                .latenessHorizon(latenessHorizon).system(system).surrogateKeyIndex(surrogateKeyIndex).modifiers(modifiers)
                .evolved(evolved).tablePartitions(tablePartitions).transactionTime(transactionTime).validToCurrent(validToCurrent)
                .retention(retention);
    }

    /** Builds an {@link EntitySpec}; each setter is named as the component it sets. */
    public static final class Builder {
        private String name;
        private String table;
        private List<String> key = List.of();
        private List<String> tracked = List.of();
        private List<String> type1 = List.of();
        private Map<String, ColumnType> columns = Map.of();
        private Optional<Duration> latenessHorizon = Optional.of(DEFAULT_LATENESS_HORIZON);
        private SystemColumns system = SystemColumns.DEFAULTS;
        private boolean surrogateKeyIndex;
        private Map<String, TypeModifier> modifiers = Map.of();
        private Set<String> evolved = Set.of();
        private int tablePartitions;
        private boolean transactionTime = true;
        private ValidToCurrent validToCurrent = ValidToCurrent.NULL;
        private HistoryRetention retention = HistoryRetention.NONE;

        private Builder() {
        }

        public Builder name(String v) {
            name = v;
            return this;
        }

        public Builder table(String v) {
            table = v;
            return this;
        }

        public Builder key(List<String> v) {
            key = v;
            return this;
        }

        public Builder tracked(List<String> v) {
            tracked = v;
            return this;
        }

        public Builder type1(List<String> v) {
            type1 = v;
            return this;
        }

        public Builder columns(Map<String, ColumnType> v) {
            columns = v;
            return this;
        }

        /** Empty: unlimited. */
        public Builder latenessHorizon(Optional<Duration> v) {
            latenessHorizon = v;
            return this;
        }

        public Builder system(SystemColumns v) {
            system = v;
            return this;
        }

        public Builder surrogateKeyIndex(boolean v) {
            surrogateKeyIndex = v;
            return this;
        }

        public Builder modifiers(Map<String, TypeModifier> v) {
            modifiers = v;
            return this;
        }

        public Builder evolved(Set<String> v) {
            evolved = v;
            return this;
        }

        /** 0: plain tables. */
        public Builder tablePartitions(int v) {
            tablePartitions = v;
            return this;
        }

        /** Default true. */
        public Builder transactionTime(boolean v) {
            transactionTime = v;
            return this;
        }

        public Builder validToCurrent(ValidToCurrent v) {
            validToCurrent = v;
            return this;
        }

        public Builder retention(HistoryRetention v) {
            retention = v;
            return this;
        }

        public EntitySpec build() {
            return new EntitySpec(name, table, key, tracked, type1, columns, latenessHorizon, system, surrogateKeyIndex, modifiers, evolved,
                    tablePartitions, transactionTime, validToCurrent, retention);
        }
    }

    public EntitySpec {
        key = List.copyOf(key);
        tracked = List.copyOf(tracked);
        type1 = List.copyOf(type1);
        columns = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns));
        modifiers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(modifiers));
        evolved = java.util.Collections.unmodifiableSet(new java.util.LinkedHashSet<>(evolved));
        EntityChecks.validate(name, table, key, tracked, type1, columns, latenessHorizon, system);
        Objects.requireNonNull(validToCurrent, "validToCurrent");
        Objects.requireNonNull(retention, "retention");
        if (tablePartitions == 1 || tablePartitions < 0 || tablePartitions > MAX_TABLE_PARTITIONS) {
            throw new IllegalArgumentException("table-partitions: must be 0 (plain tables) or 2 to " + MAX_TABLE_PARTITIONS + ", got "
                    + tablePartitions);
        }
        if (tablePartitions > 0 && surrogateKeyIndex) {
            throw new IllegalArgumentException("table-partitions: not with surrogate-key-index: true (a unique index on a partitioned "
                    + "table must contain its partition key, the entity's key; create a plain index on surrogate_key yourself if you "
                    + "look versions up by it)");
        }
        // evolved columns come after the config's own in their list: the hash of the config's
        // tracked columns is then the prefix it always was
        for (List<String> list : List.of(tracked, type1)) {
            boolean inTail = false;
            for (String c : list) {
                if (evolved.contains(c)) {
                    inTail = true;
                } else if (inTail) {
                    throw new IllegalArgumentException("column '" + c + "' of the config follows a column added while running");
                }
            }
        }
        for (String c : evolved) {
            if (!tracked.contains(c) && !type1.contains(c)) {
                throw new IllegalArgumentException("evolved column '" + c + "' is neither tracked nor type1");
            }
        }
        for (Map.Entry<String, TypeModifier> m : modifiers.entrySet()) {
            ColumnType base = columns.get(m.getKey());
            if (base != m.getValue().base()) {
                throw new IllegalArgumentException("columns: '" + m.getKey() + "' is declared " + m.getValue().sqlType() + " but typed "
                        + (base == null ? "nothing" : base.sqlName()));
            }
        }
    }

    /**
     * Refuses a table name too long for the names dimstream derives from it ({@link #TABLE_NAME_SUFFIXES}),
     * which PostgreSQL would cut (the memory table's could even become the table's own). Checked
     * where the config is read, not on construction: a replay's shadow table ({@link #withTable}) is
     * named after the live one and is allowed the full 63 bytes.
     *
     * @throws IllegalArgumentException {@code table: ...}
     */
    public static void checkTableName(String table) {
        String bare = Sql.nameOf(table);
        int bytes = bare.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_TABLE_NAME_BYTES) {
            String longest = TABLE_NAME_SUFFIXES.stream().max(java.util.Comparator.comparingInt(String::length)).orElseThrow();
            throw new IllegalArgumentException("table: '" + bare + "' is " + bytes + " bytes long; at most " + MAX_TABLE_NAME_BYTES
                    + " fit, since dimstream names objects after the table (the longest, '" + bare + longest + "', must fit the "
                    + MAX_IDENTIFIER_BYTES + " bytes PostgreSQL keeps of a name)");
        }
    }

    /** The same entity on another table (a replay's shadow table). */
    public EntitySpec withTable(String otherTable) {
        return toBuilder().table(otherTable).build();
    }

    /** The same entity with another lateness horizon (empty: unlimited). */
    public EntitySpec withLatenessHorizon(Optional<Duration> horizon) {
        return toBuilder().latenessHorizon(horizon).build();
    }

    /**
     * This entity with one more column, added while running: at the end of the tracked columns
     * ({@code tracked} true) or of the type-1 columns, with a plain type. A new object, so the
     * writer's SQL cache ({@code Scd2Writer}) builds the statements with the column.
     *
     * @throws IllegalArgumentException when the column exists or its name is not one a column may take
     */
    public EntitySpec withEvolvedColumn(String column, ColumnType type, boolean isTracked) {
        if (columns.containsKey(column)) {
            throw new IllegalArgumentException("column '" + column + "' is a column of entity '" + name + "' already");
        }
        List<String> t = new ArrayList<>(tracked);
        List<String> t1 = new ArrayList<>(type1);
        (isTracked ? t : t1).add(column);
        Map<String, ColumnType> cols = new LinkedHashMap<>(columns);
        cols.put(column, type);
        Set<String> ev = new java.util.LinkedHashSet<>(evolved);
        ev.add(column);
        return toBuilder().tracked(t).type1(t1).columns(cols).evolved(ev).build();
    }

    /**
     * This entity with a column the config declares taken as one added while running: moved to the
     * end of its role's columns, with its type and role, and into {@link #evolved}. For a column the
     * catalog records as added while running that the config declares since: its place in
     * {@code record_hash} stays the one it had before the config named it ({@code EvolvedColumns.merge}).
     *
     * @throws IllegalArgumentException when the column is neither tracked nor type-1
     */
    public EntitySpec withColumnAsEvolved(String column) {
        if (evolved.contains(column)) {
            return this;
        }
        boolean isTracked = tracked.contains(column);
        if (!isTracked && !type1.contains(column)) {
            throw new IllegalArgumentException("column '" + column + "' of entity '" + name + "' is neither tracked nor type1");
        }
        List<String> t = new ArrayList<>(tracked);
        List<String> t1 = new ArrayList<>(type1);
        List<String> role = isTracked ? t : t1;
        role.remove(column);
        role.add(column);
        Map<String, ColumnType> cols = new LinkedHashMap<>(columns);
        cols.put(column, cols.remove(column));
        Set<String> ev = new java.util.LinkedHashSet<>(evolved);
        ev.add(column);
        return toBuilder().tracked(t).type1(t1).columns(cols).evolved(ev).build();
    }

    /**
     * This entity with a column's type changed (a widening applied while running,
     * {@link TypeWidening}): same columns, same roles, same order. A new object, so the writer's SQL
     * cache builds its statements (and their casts) again.
     *
     * @throws IllegalArgumentException when the entity has no such column
     */
    public EntitySpec withColumnType(String column, TypeWidening.ColumnDef def) {
        if (!columns.containsKey(column)) {
            throw new IllegalArgumentException("entity '" + name + "' has no column '" + column + "'");
        }
        Map<String, ColumnType> cols = new LinkedHashMap<>(columns);
        cols.put(column, def.type());
        Map<String, TypeModifier> mods = new LinkedHashMap<>(modifiers);
        def.modifier().ifPresentOrElse(m -> mods.put(column, m), () -> mods.remove(column));
        return toBuilder().columns(cols).modifiers(mods).build();
    }

    /** The tracked columns the config declares: those {@code record_hash} covers position by position. */
    public List<String> configTracked() {
        return tracked.stream().filter(c -> !evolved.contains(c)).toList();
    }

    /** The tracked columns added while running, in the order they were added (the tail of {@link #tracked}). */
    public List<String> evolvedTracked() {
        return tracked.stream().filter(evolved::contains).toList();
    }

    /**
     * A key's values (the first {@code key().size()} of {@code values}, in key order, as an event or
     * a table row holds them) as an event's data: key column to value.
     */
    public Map<String, Object> keyData(List<Object> values) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < key.size(); i++) {
            m.put(key.get(i), values.get(i));
        }
        return m;
    }

    /** Tracked then type-1 columns: the attributes a version row carries. */
    public List<String> attributes() {
        List<String> all = new ArrayList<>(tracked);
        all.addAll(type1);
        return all;
    }

    /** Key, tracked, type-1, in that order. */
    public List<String> dataColumns() {
        List<String> all = new ArrayList<>(key);
        all.addAll(attributes());
        return all;
    }

    public ColumnType type(String column) {
        return columns.get(column);
    }

    /** The column's modifier ({@code varchar(n)}, {@code numeric(p,s)}), if it was declared with one. */
    public Optional<TypeModifier> modifier(String column) {
        return Optional.ofNullable(modifiers.get(column));
    }

    /** The column's declared type as PostgreSQL's {@code format_type} prints it: the entity table's column type. */
    public String sqlType(String column) {
        TypeModifier m = modifiers.get(column);
        return m != null ? m.sqlType() : columns.get(column).sqlName();
    }

    /** Whether the tables dimstream creates for this entity are hash-partitioned by the key. */
    public boolean partitioned() {
        return tablePartitions > 0;
    }

    /** The name of partition {@code i} (0-based, the hash remainder) of {@code table} (the entity table or its memory). */
    public static String partitionName(String table, int i) {
        return table + "_p" + i;
    }

    /**
     * Whether the version row {@code alias} (null: unqualified) is open: {@code a."valid_to" IS NULL},
     * or {@code = 'infinity'::timestamptz} with {@code valid-to-current: infinity}.
     */
    public String openTest(String alias) {
        return validToCurrent.openTest((alias == null ? "" : alias + ".") + Sql.ident(system.validTo()));
    }

    /** The {@code valid_to} an open version gets: {@code NULL::timestamptz} or {@code 'infinity'::timestamptz}. */
    public String openEnd() {
        return validToCurrent.openEnd();
    }

    /** Whether the version row {@code alias} (null: unqualified) ends after {@code instant} (an SQL expression): open versions do. */
    public String endsAfter(String alias, String instant) {
        return validToCurrent.endsAfter((alias == null ? "" : alias + ".") + Sql.ident(system.validTo()), instant);
    }

    /** The table holding the per-key event memory, beside the entity table. */
    public String memoryTable() {
        return table + "_events";
    }

    /** The view of current rows. */
    public String currentView() {
        return table + "_current";
    }

    /** The set-returning function giving the table as of an instant. */
    public String asOfFunction() {
        return table + "_as_of";
    }

    /**
     * The side table of transaction time ({@link #transactionTime()}): every version image the table
     * believed once and a later arrival rewrote or removed, with the interval it was believed.
     */
    public String supersededTable() {
        return table + "_superseded";
    }

    /** The trigger function that keeps {@link #supersededTable()}. */
    public String supersedeFunction() {
        return table + "_supersede";
    }
}
