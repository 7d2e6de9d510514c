package io.dimstream.config;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One item of {@code entities:}. Built only by {@link DimstreamConfig}, which has already checked
 * that {@link #toEntitySpec()} succeeds.
 *
 * @param latenessHorizon empty means {@code unlimited}
 * @param columns         column name to type, in config order
 * @param seedJson        field names and operation values of {@code format: seed-json}; defaults otherwise
 * @param avro            the value deserializer of {@code format: avro | debezium-avro}; defaults otherwise
 * @param mode            {@code changes} (events) or {@code snapshot} (periodic full slices)
 * @param snapshotTimeField with {@code mode: snapshot}, the field of each row holding its slice's
 *                        instant (default {@value #DEFAULT_SNAPSHOT_TIME_FIELD})
 * @param partitionedByKey {@code partitioned-by-key: true}: the producers already put every event
 *                        of a business key on one partition of the source topic (they key records
 *                        by it, in any consistent encoding), so the topology skips its repartition
 *                        step: one Kafka transaction less per event on its way, less latency
 * @param surrogateKeyIndex {@code surrogate-key-index: true}: the table dimstream creates gets a
 *                        unique index on {@code surrogate_key} ({@link EntitySpec#surrogateKeyIndex()})
 * @param ignoreUndeclaredColumns {@code undeclared-columns: ignore}: fields of a source record that
 *                        are not columns of the entity are dropped instead of sending the record to
 *                        the DLQ (a Debezium row image carries every column of its source table)
 * @param modifiers       the columns declared {@code varchar(n)} or {@code numeric(p,s)} (their base
 *                        type is in {@code columns}); see {@link EntitySpec#modifiers()}
 * @param cdc             event time, unchanged values, truncates and encodings of change-data-capture
 *                        feeds ({@link CdcOptions}); {@link CdcOptions#defaults} when the config names none
 */
public record EntityConfig(
        String name,
        String topic,
        EventFormat format,
        String table,
        List<String> key,
        List<String> tracked,
        List<String> type1,
        Optional<Duration> latenessHorizon,
        Map<String, ColumnType> columns,
        SystemColumns systemColumns,
        SeedJsonOptions seedJson,
        AvroOptions avro,
        FeedMode mode,
        String snapshotTimeField,
        boolean partitionedByKey,
        boolean ignoreUndeclaredColumns,
        boolean surrogateKeyIndex,
        Map<String, TypeModifier> modifiers,
        CdcOptions cdc) {

    /** The field of a snapshot row that holds its slice's instant, unless {@code snapshot-time-field} names another. */
    public static final String DEFAULT_SNAPSHOT_TIME_FIELD = "snapshot_time";

    /** An entity with the change-data-capture defaults of its format. */
    public EntityConfig(String name, String topic, EventFormat format, String table, List<String> key, List<String> tracked,
                        List<String> type1, Optional<Duration> latenessHorizon, Map<String, ColumnType> columns,
                        SystemColumns systemColumns, SeedJsonOptions seedJson, AvroOptions avro, FeedMode mode,
                        String snapshotTimeField, boolean partitionedByKey, boolean ignoreUndeclaredColumns,
                        boolean surrogateKeyIndex, Map<String, TypeModifier> modifiers) {
        this(name, topic, format, table, key, tracked, type1, latenessHorizon, columns, systemColumns, seedJson, avro,
                mode, snapshotTimeField, partitionedByKey, ignoreUndeclaredColumns, surrogateKeyIndex, modifiers,
                CdcOptions.defaults(format));
    }

    /** An entity whose columns have their plain types (no modifiers). */
    public EntityConfig(String name, String topic, EventFormat format, String table, List<String> key, List<String> tracked,
                        List<String> type1, Optional<Duration> latenessHorizon, Map<String, ColumnType> columns,
                        SystemColumns systemColumns, SeedJsonOptions seedJson, AvroOptions avro, FeedMode mode,
                        String snapshotTimeField, boolean partitionedByKey, boolean ignoreUndeclaredColumns,
                        boolean surrogateKeyIndex) {
        this(name, topic, format, table, key, tracked, type1, latenessHorizon, columns, systemColumns, seedJson, avro,
                mode, snapshotTimeField, partitionedByKey, ignoreUndeclaredColumns, surrogateKeyIndex, Map.of());
    }

    /** An entity whose table gets no index on {@code surrogate_key} (the default). */
    public EntityConfig(String name, String topic, EventFormat format, String table, List<String> key, List<String> tracked,
                        List<String> type1, Optional<Duration> latenessHorizon, Map<String, ColumnType> columns,
                        SystemColumns systemColumns, SeedJsonOptions seedJson, AvroOptions avro, FeedMode mode,
                        String snapshotTimeField, boolean partitionedByKey, boolean ignoreUndeclaredColumns) {
        this(name, topic, format, table, key, tracked, type1, latenessHorizon, columns, systemColumns, seedJson, avro,
                mode, snapshotTimeField, partitionedByKey, ignoreUndeclaredColumns, false);
    }

    /** An entity that refuses undeclared columns (the default). */
    public EntityConfig(String name, String topic, EventFormat format, String table, List<String> key, List<String> tracked,
                        List<String> type1, Optional<Duration> latenessHorizon, Map<String, ColumnType> columns,
                        SystemColumns systemColumns, SeedJsonOptions seedJson, AvroOptions avro, FeedMode mode,
                        String snapshotTimeField, boolean partitionedByKey) {
        this(name, topic, format, table, key, tracked, type1, latenessHorizon, columns, systemColumns, seedJson, avro,
                mode, snapshotTimeField, partitionedByKey, false);
    }

    /** An entity whose topic is repartitioned by business key (the default). */
    public EntityConfig(String name, String topic, EventFormat format, String table, List<String> key, List<String> tracked,
                        List<String> type1, Optional<Duration> latenessHorizon, Map<String, ColumnType> columns,
                        SystemColumns systemColumns, SeedJsonOptions seedJson, AvroOptions avro, FeedMode mode,
                        String snapshotTimeField) {
        this(name, topic, format, table, key, tracked, type1, latenessHorizon, columns, systemColumns, seedJson, avro,
                mode, snapshotTimeField, false);
    }

    /** A {@code mode: changes} entity. */
    public EntityConfig(String name, String topic, EventFormat format, String table, List<String> key, List<String> tracked,
                        List<String> type1, Optional<Duration> latenessHorizon, Map<String, ColumnType> columns,
                        SystemColumns systemColumns, SeedJsonOptions seedJson, AvroOptions avro) {
        this(name, topic, format, table, key, tracked, type1, latenessHorizon, columns, systemColumns, seedJson, avro,
                FeedMode.CHANGES, DEFAULT_SNAPSHOT_TIME_FIELD);
    }

    /** An entity whose format needs no seed-json or Avro options (they take their defaults). */
    public EntityConfig(String name, String topic, EventFormat format, String table, List<String> key, List<String> tracked,
                        List<String> type1, Optional<Duration> latenessHorizon, Map<String, ColumnType> columns,
                        SystemColumns systemColumns) {
        this(name, topic, format, table, key, tracked, type1, latenessHorizon, columns, systemColumns,
                SeedJsonOptions.DEFAULTS, AvroOptions.DEFAULTS);
    }

    public EntityConfig {
        key = List.copyOf(key);
        tracked = List.copyOf(tracked);
        type1 = List.copyOf(type1);
        columns = Collections.unmodifiableMap(new LinkedHashMap<>(columns));
        modifiers = Collections.unmodifiableMap(new LinkedHashMap<>(modifiers));
        if (mode == null) {
            mode = FeedMode.CHANGES;
        }
        if (snapshotTimeField == null) {
            snapshotTimeField = DEFAULT_SNAPSHOT_TIME_FIELD;
        }
        if (cdc == null) {
            cdc = CdcOptions.defaults(format);
        }
    }

    /** Whether the topic carries full slices ({@code mode: snapshot}). */
    public boolean snapshot() {
        return mode == FeedMode.SNAPSHOT;
    }

    /** The entity as the database side sees it. */
    public EntitySpec toEntitySpec() {
        return new EntitySpec(name, table, key, tracked, type1, columns, latenessHorizon, systemColumns, surrogateKeyIndex, modifiers);
    }
}
