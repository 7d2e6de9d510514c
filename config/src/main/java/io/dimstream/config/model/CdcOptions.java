package io.dimstream.config.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How an entity reads change-data-capture feeds (docs/formats.md, "Debezium and other CDC feeds"): where an event's time comes
 * from, which values mean "unchanged", what a truncate does, and how values without a schema are
 * encoded.
 *
 * @param eventTime         {@code event-time:}: {@code source.ts_ms} (the source database's commit
 *                          time, the default of the Debezium formats), {@code ts_ms} (when the
 *                          connector processed the change) or {@code field NAME}; {@link EventTime#DEFAULT}
 *                          leaves it to the format (the native {@code event_time}, seed-json's
 *                          {@code time-field})
 * @param unavailableValue  {@code unavailable-value:}: a value that means "the source did not send
 *                          this column, it is unchanged" (Debezium's placeholder for an unchanged
 *                          TOAST column without {@code REPLICA IDENTITY FULL}); default
 *                          {@value #DEBEZIUM_UNAVAILABLE_VALUE} for the Debezium formats, none for
 *                          the others; {@code none} turns it off
 * @param ignoreNullUpdates {@code ignore-null-updates:}: columns whose NULL (or missing field) in an
 *                          upsert means "unchanged", not "set to NULL" (partial updates)
 * @param onTruncate        {@code on-truncate:}: what a Debezium truncate event ({@code op: t}) does
 * @param encodings         {@code encodings:}: column to the semantic type its JSON value is encoded
 *                          as, for feeds without a schema (e.g. {@code io.debezium.time.Date})
 * @param schemaEvolution   {@code schema-evolution:}: what a change of the source's row shape does
 * @param except            {@code except:} (with {@code tracked: "*"}): source fields the entity
 *                          leaves out, dropped when a record is read
 * @param newColumns        {@code new-columns:} (with {@code schema-evolution: lenient}): what a
 *                          source field the entity does not declare becomes while running: a
 *                          tracked column, a type-1 column, or nothing (the field is dropped, or
 *                          refused with {@code undeclared-columns: reject})
 */
public record CdcOptions(EventTime eventTime, Optional<String> unavailableValue, NullUpdates ignoreNullUpdates,
                         OnTruncate onTruncate, Map<String, String> encodings, SchemaEvolution schemaEvolution,
                         java.util.List<String> except, NewColumns newColumns) {

    /** Debezium's default {@code unavailable.value.placeholder}. */
    public static final String DEBEZIUM_UNAVAILABLE_VALUE = "__debezium_unavailable_value";

    public CdcOptions {
        encodings = Collections.unmodifiableMap(new LinkedHashMap<>(encodings));
        except = java.util.List.copyOf(except);
        java.util.Objects.requireNonNull(newColumns, "newColumns");
    }

    /** Options with {@code new-columns} {@link NewColumns#IGNORE}: no column is added while running. */
    public CdcOptions(EventTime eventTime, Optional<String> unavailableValue, NullUpdates ignoreNullUpdates,
                      OnTruncate onTruncate, Map<String, String> encodings, SchemaEvolution schemaEvolution,
                      java.util.List<String> except) {
        this(eventTime, unavailableValue, ignoreNullUpdates, onTruncate, encodings, schemaEvolution, except, NewColumns.IGNORE);
    }

    /** Whether a field new to the source becomes a column while running ({@code lenient} and {@code new-columns} not ignore). */
    public boolean evolvesColumns() {
        return schemaEvolution == SchemaEvolution.LENIENT && newColumns != NewColumns.IGNORE;
    }

    /**
     * The options of an entity whose config names none of them, for entities made in code:
     * {@code new-columns} is {@link NewColumns#IGNORE} here (the config's default depends on
     * {@code tracked}, see {@link NewColumns}).
     */
    public static CdcOptions defaults(EventFormat format) {
        boolean debezium = format == EventFormat.DEBEZIUM_JSON || format == EventFormat.DEBEZIUM_AVRO;
        return new CdcOptions(debezium ? EventTime.SOURCE_TS_MS : EventTime.DEFAULT,
                debezium ? Optional.of(DEBEZIUM_UNAVAILABLE_VALUE) : Optional.empty(), NullUpdates.NONE, OnTruncate.IGNORE, Map.of(),
                debezium || format == EventFormat.AVRO ? SchemaEvolution.LENIENT : SchemaEvolution.STRICT, java.util.List.of());
    }

    /** Where an event's time comes from. */
    public record EventTime(Kind kind, String field) {

        public enum Kind { DEFAULT, SOURCE_TS_MS, TS_MS, FIELD }

        public static final EventTime DEFAULT = new EventTime(Kind.DEFAULT, null);
        public static final EventTime SOURCE_TS_MS = new EventTime(Kind.SOURCE_TS_MS, null);
        public static final EventTime TS_MS = new EventTime(Kind.TS_MS, null);

        public EventTime {
            if ((kind == Kind.FIELD) != (field != null)) {
                throw new IllegalArgumentException("event-time: a field name goes with 'field' only");
            }
        }

        public static EventTime field(String name) {
            return new EventTime(Kind.FIELD, name);
        }

        /** As written in config. */
        public String configText() {
            return switch (kind) {
                case DEFAULT -> "default";
                case SOURCE_TS_MS -> "source.ts_ms";
                case TS_MS -> "ts_ms";
                case FIELD -> "field " + field;
            };
        }
    }

    /** The columns whose NULL in an upsert means "unchanged": none, some, or all attributes. */
    public record NullUpdates(boolean all, Set<String> columns) {

        public static final NullUpdates NONE = new NullUpdates(false, Set.of());
        public static final NullUpdates ALL = new NullUpdates(true, Set.of());

        public NullUpdates {
            columns = Collections.unmodifiableSet(new LinkedHashSet<>(columns));
        }

        /** Whether a NULL of this attribute column in an upsert means "unchanged". */
        public boolean applies(String column) {
            return all || columns.contains(column);
        }

        public boolean any() {
            return all || !columns.isEmpty();
        }
    }

    /**
     * What a change of the source's row shape does. The default is {@link #LENIENT} for the formats
     * whose records are complete row images by construction (Debezium's, Avro), {@link #STRICT} for
     * native JSON and seed-json, whose producers often leave out NULL fields (Jackson's
     * {@code NON_NULL}): there a missing field must stay NULL, or a value set to NULL would be kept.
     */
    public enum SchemaEvolution implements ConfigEnum {
        /**
         * A declared attribute missing from an upsert (the source dropped the column) is unchanged:
         * the value of the key's event before is carried on, no version is made for it.
         */
        LENIENT("lenient"),
        /** A missing attribute is NULL; an undeclared field is never added (dropped, or refused with {@code undeclared-columns: reject}). */
        STRICT("strict");

        private final String configName;

        SchemaEvolution(String configName) {
            this.configName = configName;
        }

        @Override
        public String configName() {
            return configName;
        }
    }

    /**
     * What a field the source starts sending, which the entity does not declare, becomes while
     * dimstream runs ({@code schema-evolution: lenient} only). The config's default keeps a history
     * going whatever {@code tracked} says: {@link #TRACKED} for an entity with {@code tracked: "*"}
     * (it tracks every column anyway), {@link #TYPE1} for one with a list of tracked columns (the
     * user chose which columns make versions), {@link #IGNORE} for a strict entity or one that gives
     * {@code undeclared-columns}.
     */
    public enum NewColumns implements ConfigEnum {
        /** A tracked column, added to the table and the event memory; its value makes versions from then on. */
        TRACKED("tracked"),
        /** A type-1 column, added likewise; its value is overwritten in place. */
        TYPE1("type1"),
        /** Nothing is added: the field is dropped, counted and logged once, or refused ({@code undeclared-columns: reject}). */
        IGNORE("ignore");

        private final String configName;

        NewColumns(String configName) {
            this.configName = configName;
        }

        @Override
        public String configName() {
            return configName;
        }
    }

    /** What a truncate of the source table does to the history. */
    public enum OnTruncate implements ConfigEnum {
        /** Logged and counted; the history is left as it is (the default). */
        IGNORE("ignore"),
        /** Every key live at the truncate's time is deleted at that time, as by a snapshot slice with no rows. */
        DELETE_ALL("delete-all");

        private final String configName;

        OnTruncate(String configName) {
            this.configName = configName;
        }

        @Override
        public String configName() {
            return configName;
        }
    }
}
