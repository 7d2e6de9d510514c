package io.dimstream.app.topology;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;

/** The Kafka Streams settings of the dimstream topology. */
public final class StreamsConfigFactory {

    /**
     * With exactly-once every commit ends a transaction; 1 s instead of the EOS default of 100 ms
     * carried ~27% more events on this machine (PERFORMANCE.md), at up to 1 s more latency.
     */
    public static final int DEFAULT_COMMIT_INTERVAL_MS = 1000;

    /**
     * Set by dimstream itself: exactly-once is the design, the serdes are the topology's, and the
     * exception handlers are what keeps one record from stopping or looping a stream thread.
     */
    private static final java.util.Set<String> RESERVED = java.util.Set.of(StreamsConfig.APPLICATION_ID_CONFIG,
            StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, StreamsConfig.STATE_DIR_CONFIG, StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
            StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG,
            StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG);

    private StreamsConfigFactory() {
    }

    /**
     * Checks the user's {@code kafka.streams:} properties: each must be a Kafka Streams setting, or
     * a client setting behind the prefix Kafka Streams gives it ({@code consumer.}, {@code producer.},
     * {@code admin.}, {@code main.consumer.}, {@code restore.consumer.}, {@code global.consumer.};
     * {@code topic.} for internal topics), and not one dimstream sets itself.
     *
     * @return one problem per bad name, each naming the field ({@code kafka.streams.NAME: ...}); empty when all are fine
     */
    public static java.util.List<String> problems(Map<String, String> userProperties) {
        java.util.List<String> problems = new java.util.ArrayList<>();
        userProperties.keySet().forEach(name -> {
            if (RESERVED.contains(name)) {
                problems.add("kafka.streams." + name + ": set by dimstream (exactly_once_v2, byte-array serdes, "
                        + "the exception handlers that dead-letter bad records, --application-id, --data-dir, "
                        + "kafka.bootstrap-servers); remove it");
            } else if (!known(name)) {
                problems.add("kafka.streams." + name + ": not a Kafka Streams setting (nor consumer./producer./admin./topic. + a client setting)");
            }
        });
        return problems;
    }

    private static boolean known(String name) {
        if (StreamsConfig.configDef().names().contains(name) || name.startsWith(StreamsConfig.TOPIC_PREFIX)) {
            return true;
        }
        java.util.Set<String> consumer = org.apache.kafka.clients.consumer.ConsumerConfig.configNames();
        for (String prefix : java.util.List.of(StreamsConfig.MAIN_CONSUMER_PREFIX, StreamsConfig.RESTORE_CONSUMER_PREFIX,
                StreamsConfig.GLOBAL_CONSUMER_PREFIX, StreamsConfig.CONSUMER_PREFIX)) {
            if (name.startsWith(prefix)) {
                return consumer.contains(name.substring(prefix.length()));
            }
        }
        if (name.startsWith(StreamsConfig.PRODUCER_PREFIX)) {
            return org.apache.kafka.clients.producer.ProducerConfig.configNames().contains(name.substring(StreamsConfig.PRODUCER_PREFIX.length()));
        }
        if (name.startsWith(StreamsConfig.ADMIN_CLIENT_PREFIX)) {
            return org.apache.kafka.clients.admin.AdminClientConfig.configNames().contains(name.substring(StreamsConfig.ADMIN_CLIENT_PREFIX.length()));
        }
        // an unprefixed client setting (e.g. security.protocol, sasl.*) goes to every client Kafka Streams makes
        return consumer.contains(name) || org.apache.kafka.clients.producer.ProducerConfig.configNames().contains(name);
    }

    /**
     * @param pipelines the topology's entities: where the exception handlers send a record they
     *                  dead-letter ({@link DeadLetterRoutes})
     * @param metrics   where the handlers count a dead-lettered record ({@code dimstream.events}, class dlq)
     * @param overrides any Streams, consumer or producer setting, applied last; e.g.
     *                  {@code replication.factor=1} for a single broker (the default -1 takes the
     *                  broker's default), {@code num.stream.threads}, {@code commit.interval.ms}
     */
    public static Properties create(String applicationId, String bootstrapServers, Path stateDir, java.util.List<EntityPipeline> pipelines,
                                    io.micrometer.core.instrument.MeterRegistry metrics, Map<String, ?> overrides) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, DEFAULT_COMMIT_INTERVAL_MS);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, -1);
        // a stream thread learns of a rebalance at its next heartbeat: 1 s instead of 3 s (KafkaClients says why)
        p.put(StreamsConfig.consumerPrefix(org.apache.kafka.clients.consumer.ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG),
                io.dimstream.app.kafka.KafkaClients.GROUP_HEARTBEAT_MS);
        // Records keep their source record's timestamp through the topology; the event time is never
        // made a record timestamp. A source timestamp can still be old (a backfill topic written with
        // 2025 CreateTimes), and Kafka deletes by record timestamp: a repartition or changelog record
        // stamped that way could be deleted by retention minutes after it was written (DESIGN section 6).
        // So every internal topic stamps records with the broker's append time. LogAppendTime also
        // exempts them from log.message.timestamp.after.max.ms, which refuses CreateTimes more than
        // an hour ahead. Streams relies on record timestamps only for windows and joins; this
        // topology has neither. The changes and DLQ topics get the same setting (TopicPlanner).
        p.put(StreamsConfig.topicPrefix(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG), "LogAppendTime");
        // No record cache in front of the key-state store by default. Keys rarely repeat within one
        // commit interval in a change feed (each key changes now and then), so the cache saved few
        // changelog records while costing the most CPU of the stream thread: a profile at
        // 5,000 events/s over 100k keys spent ~18% of its samples in the cache's TreeMap (lookups,
        // evictions of a full cache, flushes), and turning it off took p99 from 3.1 s to 0.73-0.78 s and
        // peak RSS from 751 to 450-492 MiB (docs/benchmarks.md). A feed with hot keys (the same key
        // many times a second) can set kafka.streams.statestore.cache.max.bytes back on.
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0L);
        // RocksDB's off-heap memory bounded for the whole process (the service's RSS bar)
        p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDbConfig.class.getName());
        // No record can stop or loop a stream thread (DESIGN section 6): an exception a step throws for
        // a record dead-letters it, and so does a send refused for the record itself; transient failures
        // fail the thread instead, for StreamThreadSupervisor to replace it with backoff.
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterProcessingHandler.class.getName());
        p.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, DeadLetterProductionHandler.class.getName());
        p.put(DeadLetterRoutes.CONFIG, DeadLetterRoutes.of(applicationId, pipelines, metrics));
        // Record size limits, deliberately Kafka's defaults and explicit, so the producer, the internal
        // topics, the changes and DLQ topics (TopicPlanner) and the decode step's check agree whatever the
        // broker's defaults (RecordLimits says why these values; docs/operations.md, "Record size limits").
        p.put(StreamsConfig.producerPrefix(org.apache.kafka.clients.producer.ProducerConfig.MAX_REQUEST_SIZE_CONFIG),
                RecordLimits.DEFAULT_MAX_REQUEST_SIZE);
        p.put(StreamsConfig.topicPrefix(TopicConfig.MAX_MESSAGE_BYTES_CONFIG), Integer.toString(RecordLimits.DEFAULT_MAX_MESSAGE_BYTES));
        p.putAll(overrides);
        return p;
    }
}
