package io.dimstream.config.model;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.entity.ValidToCurrent;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One item of {@code entities:}. Built by {@link io.dimstream.config.DimstreamConfig}, which has already checked that
 * {@link #toEntitySpec()} succeeds, or in code with {@link #builder()} (every component but name,
 * topic, table, key, tracked and columns has its default there).
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
 * @param streamsClient   {@code streams-client}: the Kafka Streams client the entity runs on, shared
 *                        by the entities naming the same one; null in the constructor means the
 *                        entity's own name (a client of its own)
 * @param surrogateKeyIndex {@code surrogate-key-index: true}: the table dimstream creates gets a
 *                        unique index on {@code surrogate_key} ({@link EntitySpec#surrogateKeyIndex()})
 * @param tablePartitions {@code table-partitions: N}: the tables dimstream creates are hash-partitioned
 *                        by the key into N partitions; 0: plain ({@link EntitySpec#tablePartitions()})
 * @param rejectUndeclaredColumns {@code undeclared-columns: reject}: a source record with a field that
 *                        is no column of the entity (and that {@code new-columns} does not make one)
 *                        goes to the DLQ naming it; false (the default): such a field is dropped,
 *                        counted and logged once ({@link UndeclaredColumns})
 * @param transactionTime {@code transaction-time} (default true): the table keeps transaction time
 *                        ({@link EntitySpec#transactionTime()})
 * @param modifiers       the columns declared {@code varchar(n)} or {@code numeric(p,s)} (their base
 *                        type is in {@code columns}); see {@link EntitySpec#modifiers()}
 * @param cdc             event time, unchanged values, truncates and encodings of change-data-capture
 *                        feeds ({@link CdcOptions}); {@link CdcOptions#defaults} when the config names none
 * @param validToCurrent  {@code valid-to-current}: what {@code valid_to} holds on an open version
 *                        ({@link EntitySpec#validToCurrent()}); NULL when the config names none
 * @param retention       {@code history-retention}, {@code history-grain}, {@code history-grain-after}
 *                        ({@link EntitySpec#retention()}); {@link HistoryRetention#NONE} when the config names none
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
        String streamsClient,
        boolean rejectUndeclaredColumns,
        boolean surrogateKeyIndex,
        int tablePartitions,
        Map<String, TypeModifier> modifiers,
        CdcOptions cdc,
        boolean transactionTime,
        ValidToCurrent validToCurrent,
        HistoryRetention retention) {

    /** The field of a snapshot row that holds its slice's instant, unless {@code snapshot-time-field} names another. */
    public static final String DEFAULT_SNAPSHOT_TIME_FIELD = "snapshot_time";

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
        if (validToCurrent == null) {
            validToCurrent = ValidToCurrent.NULL;
        }
        if (retention == null) {
            retention = HistoryRetention.NONE;
        }
        if (streamsClient == null) {
            streamsClient = name;
        }
    }

    /** Whether the topic carries full slices ({@code mode: snapshot}). */
    public boolean snapshot() {
        return mode == FeedMode.SNAPSHOT;
    }

    /** The entity as the database side sees it. */
    public EntitySpec toEntitySpec() {
        return EntitySpec.builder().name(name).table(table).key(key).tracked(tracked).type1(type1).columns(columns)
                .latenessHorizon(latenessHorizon).system(systemColumns).surrogateKeyIndex(surrogateKeyIndex)
                .tablePartitions(tablePartitions).modifiers(modifiers).transactionTime(transactionTime).validToCurrent(validToCurrent)
                .retention(retention).build();
    }

    /** A builder with the defaults of an entity that names only what it must (json, changes, P30D, no type-1 columns). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this entity's components (its {@link #cdc()} included: set it again after another format). */
    public Builder toBuilder() {
        return new Builder().name(name).topic(topic).format(format).table(table).key(key).tracked(tracked).type1(type1)
                .latenessHorizon(latenessHorizon).columns(columns).systemColumns(systemColumns).seedJson(seedJson).avro(avro)
                .mode(mode).snapshotTimeField(snapshotTimeField).partitionedByKey(partitionedByKey).streamsClient(streamsClient)
                .rejectUndeclaredColumns(rejectUndeclaredColumns).surrogateKeyIndex(surrogateKeyIndex)
                .tablePartitions(tablePartitions).modifiers(modifiers).cdc(cdc).transactionTime(transactionTime).validToCurrent(validToCurrent)
                .retention(retention);
    }

    /** Builds an {@link EntityConfig}; each setter is named as the component it sets. */
    public static final class Builder {
        private String name;
        private String topic;
        private EventFormat format = EventFormat.JSON;
        private String table;
        private List<String> key = List.of();
        private List<String> tracked = List.of();
        private List<String> type1 = List.of();
        private Optional<Duration> latenessHorizon = Optional.of(EntitySpec.DEFAULT_LATENESS_HORIZON);
        private Map<String, ColumnType> columns = Map.of();
        private SystemColumns systemColumns = SystemColumns.DEFAULTS;
        private SeedJsonOptions seedJson = SeedJsonOptions.DEFAULTS;
        private AvroOptions avro = AvroOptions.DEFAULTS;
        private FeedMode mode = FeedMode.CHANGES;
        private String snapshotTimeField = DEFAULT_SNAPSHOT_TIME_FIELD;
        private boolean partitionedByKey;
        private String streamsClient;
        private boolean rejectUndeclaredColumns;
        private boolean surrogateKeyIndex;
        private ValidToCurrent validToCurrent = ValidToCurrent.NULL;
        private int tablePartitions;
        private HistoryRetention retention;
        private Map<String, TypeModifier> modifiers = Map.of();
        private CdcOptions cdc; // null: the defaults of the format
        private boolean transactionTime = true;

        private Builder() {
        }

        public Builder name(String v) {
            name = v;
            return this;
        }

        public Builder topic(String v) {
            topic = v;
            return this;
        }

        public Builder format(EventFormat v) {
            format = v;
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

        /** Empty: {@code unlimited}. */
        public Builder latenessHorizon(Optional<Duration> v) {
            latenessHorizon = v;
            return this;
        }

        /** Column name to type, in config order. */
        public Builder columns(Map<String, ColumnType> v) {
            columns = v;
            return this;
        }

        public Builder systemColumns(SystemColumns v) {
            systemColumns = v;
            return this;
        }

        public Builder seedJson(SeedJsonOptions v) {
            seedJson = v;
            return this;
        }

        public Builder avro(AvroOptions v) {
            avro = v;
            return this;
        }

        public Builder mode(FeedMode v) {
            mode = v;
            return this;
        }

        public Builder snapshotTimeField(String v) {
            snapshotTimeField = v;
            return this;
        }

        public Builder partitionedByKey(boolean v) {
            partitionedByKey = v;
            return this;
        }

        /** @param v the client's name; null: the entity's own name */
        public Builder streamsClient(String v) {
            streamsClient = v;
            return this;
        }

        public Builder rejectUndeclaredColumns(boolean v) {
            rejectUndeclaredColumns = v;
            return this;
        }

        public Builder surrogateKeyIndex(boolean v) {
            surrogateKeyIndex = v;
            return this;
        }

        /** Default true. */
        public Builder transactionTime(boolean v) {
            transactionTime = v;
            return this;
        }

        /** 0: plain tables. */
        public Builder tablePartitions(int v) {
            tablePartitions = v;
            return this;
        }

        public Builder modifiers(Map<String, TypeModifier> v) {
            modifiers = v;
            return this;
        }

        /** Null: {@link CdcOptions#defaults} of the format. */
        public Builder cdc(CdcOptions v) {
            cdc = v;
            return this;
        }

        public Builder validToCurrent(ValidToCurrent v) {
            validToCurrent = v;
            return this;
        }

        /** Null: {@link HistoryRetention#NONE}. */
        public Builder retention(HistoryRetention v) {
            retention = v;
            return this;
        }

        public EntityConfig build() {
            return new EntityConfig(name, topic, format, table, key, tracked, type1, latenessHorizon, columns, systemColumns, seedJson,
                    avro, mode, snapshotTimeField, partitionedByKey, streamsClient, rejectUndeclaredColumns, surrogateKeyIndex, tablePartitions, modifiers,
                    cdc, transactionTime, validToCurrent, retention);
        }
    }
}
