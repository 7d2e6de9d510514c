package io.dimstream.config.keys;

import io.dimstream.config.model.AvroOptions;
import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.config.model.FeedMode;
import io.dimstream.config.model.SeedJsonOptions;
import io.dimstream.config.model.UndeclaredColumns;
import io.dimstream.config.model.ValueEncoding;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_DESERIALIZER_CONFIG;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_ENCODINGS;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_EVENT_TIME;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_EXCEPT;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_FORMAT;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_IGNORE_NULL_UPDATES;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_MODE;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_NEW_COLUMNS;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_ON_TRUNCATE;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_OP_FIELD;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_OP_VALUES;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_PARTITIONED_BY_KEY;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_SCHEMA_EVOLUTION;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_SNAPSHOT_TIME_FIELD;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_TIME_FIELD;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_TRACKED;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_TYPE1;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_UNDECLARED_COLUMNS;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_UNAVAILABLE_VALUE;
import static io.dimstream.config.keys.ConfigKeys.ENTITY_VALUE_DESERIALIZER;

import io.dimstream.db.entity.ColumnType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The rules of an entity that involve more than one of its keys, fed by the keys' values
 * ({@link EntityValues}, each key read and checked by its {@link ConfigKeys} declaration): keys
 * that only apply to some formats (seed-json's, Avro's, the Debezium options) or to one mode
 * ({@code snapshot-time-field}), {@code tracked: "*"} with {@code except}, and the keys that name
 * columns ({@code ignore-null-updates}, {@code encodings}, the field names that must not be
 * columns). Each problem is named by the path of the key it is about.
 */
public final class EntityRules {

    private final EntityValues v;
    private final EventFormat format;
    private final List<String> key;
    private final Map<String, ColumnType> columns;

    /**
     * @param format  the entity's format, null when wrong (the format-only rules then say nothing)
     * @param key     its key columns
     * @param columns its columns (those read, after a problem too)
     */
    public EntityRules(EntityValues v, EventFormat format, List<String> key, Map<String, ColumnType> columns) {
        this.v = v;
        this.format = format;
        this.key = key;
        this.columns = columns;
    }

    /** Whether {@code tracked} as written is {@code "*"}. */
    public static boolean star(List<String> tracked) {
        return tracked.size() == 1 && "*".equals(tracked.get(0));
    }

    /**
     * The tracked columns. {@code tracked: "*"}: every column of {@code columns} that is not a key
     * or type-1 column, in {@code columns} order. {@code except:} (only with it) lists source fields
     * the entity leaves out: they are dropped when a record is read, and a field new to the source
     * is not tracked under that name.
     */
    public List<String> tracked(List<String> tracked, List<String> type1) {
        List<String> except = v.get(ENTITY_EXCEPT);
        if (!star(tracked)) {
            if (tracked.contains("*")) {
                v.problem(ENTITY_TRACKED, "\"*\" stands alone (every column but the key, " + ENTITY_TYPE1.name() + " and "
                        + ENTITY_EXCEPT.name() + " columns)");
            }
            if (except != null) {
                v.problem(ENTITY_EXCEPT, "only with " + ENTITY_TRACKED.name() + ": \"*\"");
            }
            return tracked;
        }
        List<String> excluded = except == null ? List.of() : except;
        for (int i = 0; i < excluded.size(); i++) {
            String c = excluded.get(i);
            String at = v.path(ENTITY_EXCEPT) + "[" + i + "]: ";
            if (c == null || c.isBlank()) {
                v.problems().add(at + "must be a field name, got nothing");
            } else if (columns.containsKey(c)) {
                v.problems().add(at + "'" + c + "' is a column of the entity: " + ENTITY_EXCEPT.name() + " lists source fields the "
                        + "entity leaves out (dropped when read), so leave it out of " + ConfigKeys.ENTITY_COLUMNS.name() + " or out of "
                        + ENTITY_EXCEPT.name());
            }
        }
        List<String> all = new ArrayList<>();
        for (String c : columns.keySet()) {
            if (!key.contains(c) && !type1.contains(c) && !excluded.contains(c)) {
                all.add(c);
            }
        }
        if (all.isEmpty() && !columns.isEmpty()) {
            v.problem(ENTITY_TRACKED, "\"*\" leaves no column to track");
        }
        return all;
    }

    /** {@code mode}: a snapshot topic carries flat JSON rows ({@code format: json}); null when wrong. */
    public FeedMode mode() {
        FeedMode mode = v.get(ENTITY_MODE);
        if (mode == FeedMode.SNAPSHOT && format != null && format != EventFormat.JSON) {
            v.problem(ENTITY_FORMAT, "mode " + FeedMode.SNAPSHOT.configName() + " reads flat JSON rows (" + ENTITY_FORMAT.name() + ": "
                    + EventFormat.JSON.configName() + "), not " + format.configName());
        }
        return mode;
    }

    /** {@code snapshot-time-field}: only with {@code mode: snapshot}; not a column of the entity. */
    public String snapshotTimeField(FeedMode mode) {
        String dflt = EntityConfig.DEFAULT_SNAPSHOT_TIME_FIELD;
        if (mode != FeedMode.SNAPSHOT) {
            if (v.given(ENTITY_SNAPSHOT_TIME_FIELD) && mode != null) {
                v.problem(ENTITY_SNAPSHOT_TIME_FIELD, "only used with " + ENTITY_MODE.name() + ": " + FeedMode.SNAPSHOT.configName()
                        + " (this entity's mode is " + mode.configName() + ")");
            }
            return dflt;
        }
        if (!v.given(ENTITY_SNAPSHOT_TIME_FIELD) && columns.containsKey(dflt)) {
            v.problem(ENTITY_SNAPSHOT_TIME_FIELD, "required here: the default \"" + dflt
                    + "\" is a column of the entity (the field is not part of the row image)");
            return null;
        }
        return field(ENTITY_SNAPSHOT_TIME_FIELD, dflt);
    }

    /** {@code partitioned-by-key}: not with {@code mode: snapshot}. */
    public boolean partitionedByKey(FeedMode mode) {
        boolean partitioned = v.get(ENTITY_PARTITIONED_BY_KEY);
        if (partitioned && mode == FeedMode.SNAPSHOT) {
            v.problem(ENTITY_PARTITIONED_BY_KEY, "not with " + ENTITY_MODE.name() + ": " + FeedMode.SNAPSHOT.configName()
                    + " (its end-of-slice markers need the repartition step)");
        }
        return partitioned;
    }

    /** {@code op-field}, {@code time-field}, {@code op-values}: only with {@code format: seed-json}. */
    public SeedJsonOptions seedJson() {
        SeedJsonOptions d = SeedJsonOptions.DEFAULTS;
        if (format != EventFormat.SEED_JSON) {
            if (format != null) {
                ConfigKey<?> given = v.given(ENTITY_OP_FIELD) ? ENTITY_OP_FIELD : v.given(ENTITY_TIME_FIELD) ? ENTITY_TIME_FIELD
                        : v.given(ENTITY_OP_VALUES) ? ENTITY_OP_VALUES : null;
                if (given != null) {
                    onlyWith(given, EventFormat.SEED_JSON.configName());
                }
            }
            return d;
        }
        String opField = field(ENTITY_OP_FIELD, d.opField());
        String timeField = field(ENTITY_TIME_FIELD, d.timeField());
        if (opField != null && opField.equals(timeField)) {
            v.problem(ENTITY_TIME_FIELD, "\"" + timeField + "\" is also the " + ENTITY_OP_FIELD.name());
        }
        List<String> upsert = d.upsertValues();
        List<String> delete = d.deleteValues();
        if (v.given(ENTITY_OP_VALUES)) {
            EntityKeyParsers.OpValues ops = v.get(ENTITY_OP_VALUES);
            upsert = ops.upsert();
            delete = ops.delete();
        }
        return new SeedJsonOptions(opField, timeField, upsert, delete);
    }

    /** {@code value-deserializer}, {@code deserializer-config}: only with an Avro format. */
    public AvroOptions avro() {
        if (format == null || !format.avro()) {
            if (format != null && (v.given(ENTITY_VALUE_DESERIALIZER) || v.given(ENTITY_DESERIALIZER_CONFIG))) {
                onlyWith(v.given(ENTITY_VALUE_DESERIALIZER) ? ENTITY_VALUE_DESERIALIZER : ENTITY_DESERIALIZER_CONFIG,
                        EventFormat.AVRO.configName() + " or " + EventFormat.DEBEZIUM_AVRO.configName());
            }
            return AvroOptions.DEFAULTS;
        }
        String cls = v.get(ENTITY_VALUE_DESERIALIZER);
        Map<String, String> props = new LinkedHashMap<>();
        Map<String, String> given = v.get(ENTITY_DESERIALIZER_CONFIG);
        if (given != null) {
            given.forEach((k, value) -> {
                String at = v.path(ENTITY_DESERIALIZER_CONFIG) + "." + k + ": ";
                if (value == null) {
                    v.problems().add(at + "no value given");
                } else if (AvroOptions.DEFAULT_VALUE_DESERIALIZER.equals(cls) && !AvroOptions.DEFAULT_DESERIALIZER_KEYS.contains(k)) {
                    v.problems().add(at + "not a setting of " + AvroOptions.DEFAULT_VALUE_DESERIALIZER
                            + " (known: " + String.join(", ", new TreeSet<>(AvroOptions.DEFAULT_DESERIALIZER_KEYS)) + ")");
                } else {
                    props.put(k, value);
                }
            });
        }
        return new AvroOptions(cls, props);
    }

    /**
     * {@code event-time}, {@code unavailable-value}, {@code ignore-null-updates}, {@code on-truncate},
     * {@code encodings}, {@code schema-evolution}, {@code new-columns} ({@link CdcOptions}).
     *
     * @param except the {@code except} fields
     * @param star   whether {@code tracked} is {@code "*"}
     */
    public CdcOptions cdc(FeedMode mode, List<String> except, boolean star) {
        CdcOptions d = CdcOptions.defaults(format);
        boolean debezium = format == EventFormat.DEBEZIUM_JSON || format == EventFormat.DEBEZIUM_AVRO;
        String debeziumFormats = EventFormat.DEBEZIUM_JSON.configName() + " or " + EventFormat.DEBEZIUM_AVRO.configName();
        CdcOptions.EventTime eventTime = d.eventTime();
        if (v.given(ENTITY_EVENT_TIME) && mode == FeedMode.SNAPSHOT) {
            // a slice row's time is its slice's instant: event-time would be silently ignored
            v.problem(ENTITY_EVENT_TIME, "not with " + ENTITY_MODE.name() + ": " + FeedMode.SNAPSHOT.configName()
                    + " (a slice row's time is its " + ENTITY_SNAPSHOT_TIME_FIELD.name() + ")");
        } else if (v.given(ENTITY_EVENT_TIME)) {
            CdcOptions.EventTime t = v.get(ENTITY_EVENT_TIME);
            if (t != null) {
                eventTime = t;
                if (t.kind() == CdcOptions.EventTime.Kind.FIELD) {
                    if (format == EventFormat.SEED_JSON && v.given(ENTITY_TIME_FIELD)) {
                        v.problem(ENTITY_EVENT_TIME, "not with " + ENTITY_TIME_FIELD.name() + " (both name the field of the event time)");
                    }
                } else if (!debezium && format != null) {
                    v.problem(ENTITY_EVENT_TIME, t.configText() + " is a field of Debezium's envelope: only with "
                            + ENTITY_FORMAT.name() + ": " + debeziumFormats + " (this entity's format is " + format.configName() + ")");
                }
            }
        }
        Optional<String> unavailable = v.given(ENTITY_UNAVAILABLE_VALUE) ? v.get(ENTITY_UNAVAILABLE_VALUE) : d.unavailableValue();
        CdcOptions.NullUpdates nullUpdates = nullUpdates();
        CdcOptions.OnTruncate onTruncate = CdcOptions.OnTruncate.IGNORE;
        if (v.given(ENTITY_ON_TRUNCATE)) {
            CdcOptions.OnTruncate t = v.get(ENTITY_ON_TRUNCATE);
            if (t != null) {
                onTruncate = t;
            }
            if (!debezium && format != null) {
                onlyWith(ENTITY_ON_TRUNCATE, debeziumFormats);
            }
            if (onTruncate == CdcOptions.OnTruncate.DELETE_ALL && eventTime.kind() == CdcOptions.EventTime.Kind.FIELD) {
                // a truncate event has no row image to read the field from; its commit time would be
                // another clock than the rows' field, and a delete-all at the wrong time deletes too much
                v.problem(ENTITY_ON_TRUNCATE, CdcOptions.OnTruncate.DELETE_ALL.configName() + " needs the truncate's time, which a "
                        + "truncate event carries only in its envelope (it has no row image): not with " + ENTITY_EVENT_TIME.name()
                        + ": " + eventTime.configText());
            }
        }
        Map<String, String> encodings = encodings();
        if (v.given(ENTITY_ENCODINGS) && !debezium && format != null) {
            onlyWith(ENTITY_ENCODINGS, debeziumFormats);
        }
        CdcOptions.SchemaEvolution evolution = d.schemaEvolution();
        CdcOptions.SchemaEvolution given = v.get(ENTITY_SCHEMA_EVOLUTION);
        if (given != null) {
            evolution = given;
        }
        CdcOptions.NewColumns newColumns = newColumns(evolution, star);
        return new CdcOptions(eventTime, unavailable, nullUpdates, onTruncate, encodings, evolution, except, newColumns);
    }

    /**
     * {@code new-columns}: what a field the entity does not declare becomes while running. Its default
     * keeps a history going whatever {@code tracked} says: with {@code schema-evolution: lenient},
     * {@code tracked: "*"} tracks it (the entity tracks every column anyway) and a list of columns
     * makes it a type-1 column (the user chose which columns make versions: a new one keeps its
     * current value without making any); {@code undeclared-columns} given says the entity's
     * undeclared fields are not to be added, so it is {@code ignore} then, and {@code tracked} or
     * {@code type1} beside it is refused. A strict entity adds nothing: it drops or refuses the field
     * as {@code undeclared-columns} says.
     */
    private CdcOptions.NewColumns newColumns(CdcOptions.SchemaEvolution evolution, boolean star) {
        boolean lenient = evolution == CdcOptions.SchemaEvolution.LENIENT;
        boolean undeclaredGiven = v.given(ENTITY_UNDECLARED_COLUMNS);
        CdcOptions.NewColumns dflt = !lenient || undeclaredGiven ? CdcOptions.NewColumns.IGNORE
                : star ? CdcOptions.NewColumns.TRACKED : CdcOptions.NewColumns.TYPE1;
        CdcOptions.NewColumns n = v.given(ENTITY_NEW_COLUMNS) ? v.get(ENTITY_NEW_COLUMNS) : null;
        if (n == null) {
            return dflt;
        }
        if (n != CdcOptions.NewColumns.IGNORE && !lenient) {
            v.problem(ENTITY_NEW_COLUMNS, n.configName() + " only with " + ENTITY_SCHEMA_EVOLUTION.name() + ": "
                    + CdcOptions.SchemaEvolution.LENIENT.configName() + " (this entity's is " + evolution.configName()
                    + "): a strict entity does not add the fields it does not declare");
        } else if (n != CdcOptions.NewColumns.IGNORE && undeclaredGiven && v.get(ENTITY_UNDECLARED_COLUMNS) != null) {
            UndeclaredColumns u = v.get(ENTITY_UNDECLARED_COLUMNS);
            v.problem(ENTITY_NEW_COLUMNS, n.configName() + " makes each field the entity does not declare a column, so "
                    + ENTITY_UNDECLARED_COLUMNS.name() + ": " + u.configName() + " would never apply: leave one of them out");
        }
        return n;
    }

    /** {@code ignore-null-updates}: {@code all}, or columns of the entity that are not key columns. */
    private CdcOptions.NullUpdates nullUpdates() {
        Object nu = v.get(ENTITY_IGNORE_NULL_UPDATES);
        if ("all".equals(nu)) {
            return CdcOptions.NullUpdates.ALL;
        }
        if (!(nu instanceof List<?> list)) {
            return CdcOptions.NullUpdates.NONE;
        }
        Set<String> cols = new LinkedHashSet<>();
        for (int i = 0; i < list.size(); i++) {
            Object c = list.get(i);
            String at = v.path(ENTITY_IGNORE_NULL_UPDATES) + "[" + i + "]: ";
            if (!(c instanceof String s) || s.isBlank()) {
                v.problems().add(at + "must be a column name, got " + (c == null ? "nothing" : c));
            } else if (key.contains(s)) {
                v.problems().add(at + "'" + s + "' is a key column (a key is never NULL)");
            } else if (!columns.containsKey(s)) {
                v.problems().add(at + "'" + s + "' is not a column of the entity");
            } else {
                cols.add(s);
            }
        }
        return new CdcOptions.NullUpdates(false, cols);
    }

    /** {@code encodings}: per column of the entity, an encoding its type can carry. */
    private Map<String, String> encodings() {
        Map<String, String> encodings = new LinkedHashMap<>();
        Map<String, String> given = v.get(ENTITY_ENCODINGS);
        if (given == null) {
            return encodings;
        }
        given.forEach((c, enc) -> {
            String at = v.path(ENTITY_ENCODINGS) + "." + c + ": ";
            if (!columns.containsKey(c)) {
                v.problems().add(at + "not a column of the entity");
            } else if (enc == null || enc.isBlank()) {
                v.problems().add(at + "no encoding given");
            } else {
                try {
                    ValueEncoding e = ValueEncoding.parse(enc);
                    e.refusalFor(columns.get(c)).ifPresentOrElse(
                            why -> v.problems().add(at + why),
                            () -> encodings.put(c, e.configText()));
                } catch (IllegalArgumentException ex) {
                    v.problems().add(at + ex.getMessage());
                }
            }
        });
        return encodings;
    }

    /** A field-name key's value ({@code dflt} when absent): a field of the row, so not one of its columns. */
    private String field(ConfigKey<String> k, String dflt) {
        if (!v.given(k)) {
            return dflt;
        }
        String name = v.get(k);
        if (name != null && columns.containsKey(name)) {
            v.problem(k, "\"" + name + "\" is also a column of the entity (the field is not part of the row image)");
        }
        return name;
    }

    private void onlyWith(ConfigKey<?> k, String formats) {
        v.problem(k, "only used with " + ENTITY_FORMAT.name() + ": " + formats + " (this entity's format is " + format.configName() + ")");
    }
}
