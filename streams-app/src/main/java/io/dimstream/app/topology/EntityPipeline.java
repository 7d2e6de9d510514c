package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.decode.Decoders;
import io.dimstream.app.decode.EventDecoder;
import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.entity.EntitySpec;
import java.util.List;
import java.util.Objects;

/**
 * One entity's way through the topology: its source topic, how its records are decoded, and the
 * topics its classified changes and its bad records go to.
 *
 * @param snapshot {@code mode: snapshot}: end-of-slice markers pass through to the changes topic
 *                 (see {@link io.dimstream.app.change.SliceMarker})
 * @param partitionedByKey {@code partitioned-by-key: true}: the source topic already holds every
 *                 event of a business key on one partition, so the repartition step is skipped
 * @param deletesOnTruncate {@code on-truncate: delete-all}: a truncate of the source table (the
 *                 decoder's {@link io.dimstream.app.decode.Decoded.Truncated}) travels as a
 *                 {@link io.dimstream.app.change.TruncateMarker} to every changes partition, whose
 *                 live keys the sink deletes
 * @param streamsClient the Kafka Streams client the entity runs on ({@code streams-client}; the
 *                 entity's name unless set): pipelines naming the same one share a client
 * @param widensTypes {@code schema-evolution: lenient}: a value its column's type refuses widens the
 *                 column when a safe widening takes it ({@link io.dimstream.db.entity.TypeWidening}),
 *                 and a column the record's own schema retypes otherwise goes to the sink to stop on
 */
public record EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic,
                             boolean snapshot, boolean partitionedByKey, boolean deletesOnTruncate,
                             CdcOptions.NewColumns newColumns, boolean widensTypes, String streamsClient) {

    /**
     * A builder: entity, source topic, decoder, changes topic and DLQ topic to set; a {@code mode:
     * changes} pipeline with the repartition step, truncates not applied, no column added and no
     * type widened while running, unless set.
     */
    public static Builder builder() {
        return new Builder();
    }

    /** Builds an {@link EntityPipeline}; each setter is named as the component it sets. */
    public static final class Builder {
        private EntitySpec entity;
        private String sourceTopic;
        private EventDecoder decoder;
        private String changesTopic;
        private String dlqTopic;
        private boolean snapshot;
        private boolean partitionedByKey;
        private boolean deletesOnTruncate;
        private CdcOptions.NewColumns newColumns = CdcOptions.NewColumns.IGNORE;
        private boolean widensTypes;
        private String streamsClient;

        private Builder() {
        }

        public Builder entity(EntitySpec v) {
            entity = v;
            return this;
        }

        public Builder sourceTopic(String v) {
            sourceTopic = v;
            return this;
        }

        public Builder decoder(EventDecoder v) {
            decoder = v;
            return this;
        }

        public Builder changesTopic(String v) {
            changesTopic = v;
            return this;
        }

        public Builder dlqTopic(String v) {
            dlqTopic = v;
            return this;
        }

        public Builder snapshot(boolean v) {
            snapshot = v;
            return this;
        }

        public Builder partitionedByKey(boolean v) {
            partitionedByKey = v;
            return this;
        }

        public Builder deletesOnTruncate(boolean v) {
            deletesOnTruncate = v;
            return this;
        }

        public Builder newColumns(CdcOptions.NewColumns v) {
            newColumns = v;
            return this;
        }

        public Builder widensTypes(boolean v) {
            widensTypes = v;
            return this;
        }

        /** @param v the client's name; unset: the entity's own name */
        public Builder streamsClient(String v) {
            streamsClient = v;
            return this;
        }

        public EntityPipeline build() {
            return new EntityPipeline(entity, sourceTopic, decoder, changesTopic, dlqTopic, snapshot, partitionedByKey, deletesOnTruncate,
                    newColumns, widensTypes, streamsClient);
        }
    }

    public EntityPipeline {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(sourceTopic, "sourceTopic");
        Objects.requireNonNull(decoder, "decoder");
        Objects.requireNonNull(changesTopic, "changesTopic");
        Objects.requireNonNull(dlqTopic, "dlqTopic");
        Objects.requireNonNull(newColumns, "newColumns");
        if (streamsClient == null) {
            streamsClient = entity.name();
        }
        if (snapshot && partitionedByKey) {
            throw new IllegalArgumentException("entity \"" + entity.name() + "\": a snapshot feed needs the repartition step (end-of-slice markers)");
        }
        if (snapshot && deletesOnTruncate) {
            throw new IllegalArgumentException("entity \"" + entity.name() + "\": a snapshot feed has no truncates");
        }
    }

    /** Whether control records (end-of-slice or truncate markers) travel this entity's way to the changes topic. */
    public boolean carriesControlRecords() {
        return snapshot || deletesOnTruncate;
    }

    /**
     * Whether the changes topic must have as many partitions as the source topic: the repartition
     * step multicasts control records to every classify task, and each task writes its marker to
     * the changes partition of its own number, where exactly its keys go.
     */
    public boolean changesPartitionsFollowSource() {
        return carriesControlRecords() && !partitionedByKey;
    }

    /**
     * {@code <application-id>.<entity>.dlq}: records that could not be decoded or validated, original
     * bytes kept. Named like the changes topic ({@link ChangeTopics#name}), beside it: per deployment,
     * so each deployment's DLQ mirror copies only the records its own topology refused, even when two
     * deployments read one source topic; and every topic a deployment owns begins with its
     * application id.
     */
    public static String dlqTopicOf(String applicationId, String entity) {
        return applicationId + "." + entity + ".dlq";
    }

    /** An entity of the config with the topic names of deployment {@code applicationId} and the decoder its format names. */
    public static EntityPipeline of(String applicationId, EntityConfig entity) {
        return builder()
                .entity(entity.toEntitySpec())
                .sourceTopic(entity.topic())
                .decoder(Decoders.forEntity(entity))
                .changesTopic(ChangeTopics.name(applicationId, entity.name()))
                .dlqTopic(dlqTopicOf(applicationId, entity.name()))
                .snapshot(entity.snapshot())
                .partitionedByKey(entity.partitionedByKey())
                .deletesOnTruncate(entity.cdc().onTruncate() == CdcOptions.OnTruncate.DELETE_ALL)
                .newColumns(entity.cdc().evolvesColumns() ? entity.cdc().newColumns() : CdcOptions.NewColumns.IGNORE)
                .widensTypes(entity.cdc().schemaEvolution() == CdcOptions.SchemaEvolution.LENIENT)
                .streamsClient(entity.streamsClient())
                .build();
    }

    /** This pipeline with another spec of its entity: the config's merged with the columns added while running. */
    public EntityPipeline withEntity(EntitySpec spec) {
        return new EntityPipeline(spec, sourceTopic, decoder, changesTopic, dlqTopic, snapshot, partitionedByKey, deletesOnTruncate,
                newColumns, widensTypes, streamsClient);
    }

    /** Whether a field the entity does not declare becomes a column ({@code schema-evolution: lenient}, {@code new-columns:} not ignore). */
    public boolean addsColumns() {
        return newColumns != CdcOptions.NewColumns.IGNORE;
    }

    /** Every entity of the config, in config order, with the topic names of deployment {@code applicationId}. */
    public static List<EntityPipeline> fromConfig(DimstreamConfig config, String applicationId) {
        return config.entities().stream().map(e -> of(applicationId, e)).toList();
    }
}
