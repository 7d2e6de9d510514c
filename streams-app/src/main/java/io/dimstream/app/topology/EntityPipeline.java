package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.decode.Decoders;
import io.dimstream.app.decode.EventDecoder;
import io.dimstream.config.CdcOptions;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.EntityConfig;
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
 * @param widensTypes {@code schema-evolution: lenient}: a value its column's type refuses widens the
 *                 column when a safe widening takes it ({@link io.dimstream.db.entity.TypeWidening}),
 *                 and a column the record's own schema retypes otherwise goes to the sink to stop on
 */
public record EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic,
                             boolean snapshot, boolean partitionedByKey, boolean deletesOnTruncate,
                             CdcOptions.NewColumns newColumns, boolean widensTypes) {

    /** A pipeline that widens no type: a value its column refuses goes to the DLQ. */
    public EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic,
                          boolean snapshot, boolean partitionedByKey, boolean deletesOnTruncate, CdcOptions.NewColumns newColumns) {
        this(entity, sourceTopic, decoder, changesTopic, dlqTopic, snapshot, partitionedByKey, deletesOnTruncate, newColumns, false);
    }

    /** A pipeline that adds no column while running: a field the entity does not declare is refused. */
    public EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic,
                          boolean snapshot, boolean partitionedByKey, boolean deletesOnTruncate) {
        this(entity, sourceTopic, decoder, changesTopic, dlqTopic, snapshot, partitionedByKey, deletesOnTruncate,
                CdcOptions.NewColumns.IGNORE);
    }

    /** A pipeline whose truncates, if its decoder reports any, are not applied. */
    public EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic,
                          boolean snapshot, boolean partitionedByKey) {
        this(entity, sourceTopic, decoder, changesTopic, dlqTopic, snapshot, partitionedByKey, false);
    }

    public EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic,
                          boolean snapshot) {
        this(entity, sourceTopic, decoder, changesTopic, dlqTopic, snapshot, false);
    }

    /** A {@code mode: changes} pipeline. */
    public EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic) {
        this(entity, sourceTopic, decoder, changesTopic, dlqTopic, false, false, false);
    }

    public EntityPipeline {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(sourceTopic, "sourceTopic");
        Objects.requireNonNull(decoder, "decoder");
        Objects.requireNonNull(changesTopic, "changesTopic");
        Objects.requireNonNull(dlqTopic, "dlqTopic");
        Objects.requireNonNull(newColumns, "newColumns");
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

    /** {@code <source topic>.dlq}: records that could not be decoded or validated, original bytes kept. */
    public static String dlqTopicOf(String sourceTopic) {
        return sourceTopic + ".dlq";
    }

    /** An entity of the config with the default topic names and the decoder its format names. */
    public static EntityPipeline of(EntityConfig entity) {
        return new EntityPipeline(entity.toEntitySpec(), entity.topic(), Decoders.forEntity(entity),
                ChangeTopics.name(entity.name()), dlqTopicOf(entity.topic()), entity.snapshot(),
                entity.partitionedByKey(), entity.cdc().onTruncate() == CdcOptions.OnTruncate.DELETE_ALL,
                entity.cdc().evolvesColumns() ? entity.cdc().newColumns() : CdcOptions.NewColumns.IGNORE,
                entity.cdc().schemaEvolution() == CdcOptions.SchemaEvolution.LENIENT);
    }

    /** This pipeline with another spec of its entity: the config's merged with the columns added while running. */
    public EntityPipeline withEntity(EntitySpec spec) {
        return new EntityPipeline(spec, sourceTopic, decoder, changesTopic, dlqTopic, snapshot, partitionedByKey, deletesOnTruncate,
                newColumns, widensTypes);
    }

    /** Whether a field the entity does not declare becomes a column ({@code schema-evolution: lenient}, {@code new-columns:} not ignore). */
    public boolean addsColumns() {
        return newColumns != CdcOptions.NewColumns.IGNORE;
    }

    /** Every entity of the config, in config order. */
    public static List<EntityPipeline> fromConfig(DimstreamConfig config) {
        return config.entities().stream().map(EntityPipeline::of).toList();
    }
}
