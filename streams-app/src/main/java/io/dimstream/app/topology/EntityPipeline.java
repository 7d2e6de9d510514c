package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.decode.Decoders;
import io.dimstream.app.decode.EventDecoder;
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
 */
public record EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic,
                             boolean snapshot, boolean partitionedByKey) {

    public EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic,
                          boolean snapshot) {
        this(entity, sourceTopic, decoder, changesTopic, dlqTopic, snapshot, false);
    }

    /** A {@code mode: changes} pipeline. */
    public EntityPipeline(EntitySpec entity, String sourceTopic, EventDecoder decoder, String changesTopic, String dlqTopic) {
        this(entity, sourceTopic, decoder, changesTopic, dlqTopic, false, false);
    }

    public EntityPipeline {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(sourceTopic, "sourceTopic");
        Objects.requireNonNull(decoder, "decoder");
        Objects.requireNonNull(changesTopic, "changesTopic");
        Objects.requireNonNull(dlqTopic, "dlqTopic");
        if (snapshot && partitionedByKey) {
            throw new IllegalArgumentException("entity \"" + entity.name() + "\": a snapshot feed needs the repartition step (end-of-slice markers)");
        }
    }

    /** {@code <source topic>.dlq}: records that could not be decoded or validated, original bytes kept. */
    public static String dlqTopicOf(String sourceTopic) {
        return sourceTopic + ".dlq";
    }

    /** An entity of the config with the default topic names and the decoder its format names. */
    public static EntityPipeline of(EntityConfig entity) {
        return new EntityPipeline(entity.toEntitySpec(), entity.topic(), Decoders.forEntity(entity),
                ChangeTopics.name(entity.name()), dlqTopicOf(entity.topic()), entity.snapshot(),
                entity.partitionedByKey());
    }

    /** Every entity of the config, in config order. */
    public static List<EntityPipeline> fromConfig(DimstreamConfig config) {
        return config.entities().stream().map(EntityPipeline::of).toList();
    }
}
