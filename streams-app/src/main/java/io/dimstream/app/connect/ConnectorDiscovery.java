package io.dimstream.app.connect;

import io.dimstream.app.decode.Decoders;
import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.config.ConfigException;
import io.dimstream.config.ConnectorEntities;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.keys.ConfigKeys;
import io.dimstream.config.model.AvroOptions;
import io.dimstream.config.model.ConnectorConfig;
import io.dimstream.config.model.EventFormat;
import io.dimstream.db.schema.ConnectorTables;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the tables behind a config's connectors: the broker's topics each connector covers
 * ({@link ConnectorConfig#tableOf}) that neither the catalog ({@link ConnectorTables}) nor a
 * hand-declared entity has yet, each typed by its first record that gives a shape
 * ({@link RecordShape}) and recorded in the catalog. A topic without records yet is looked at again
 * next time; one whose records give no shape (no schema, no key) is named once in the log with
 * what to do, and looked at again (the connector may be reconfigured).
 */
public final class ConnectorDiscovery {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectorDiscovery.class);
    /** How long one topic's first records are read for. */
    private static final Duration PEEK = Duration.ofSeconds(5);
    private static final int PEEK_RECORDS = 50;

    private final KafkaClients clients;
    private final Supplier<DataSource> ds;
    /** Topic and reason already logged, so a topic that stays unreadable is named once per reason. */
    private final Set<String> reported = new HashSet<>();

    /** @param ds the database of the catalog, asked for at each look */
    public ConnectorDiscovery(KafkaClients clients, Supplier<DataSource> ds) {
        this.clients = clients;
        this.ds = ds;
    }

    /**
     * The config with its connectors' tables as entities (after a look for new ones): what the
     * service starts with. A found table left out (declared by hand, a name taken, wrong keys) is
     * named in the log with the reason.
     */
    public static DimstreamConfig resolve(DimstreamConfig config, KafkaClients clients, DataSource ds) throws SQLException {
        if (config.connectors().isEmpty()) {
            return config;
        }
        new ConnectorDiscovery(clients, () -> ds).findNew(config);
        ConnectorEntities.Resolved r = ConnectorEntities.resolve(config, ConnectorTables.all(ds));
        r.leftOut().forEach((topic, why) -> LOG.warn("topic {} gets no entity from its connector: {}", topic, why));
        return r.config();
    }

    /**
     * Looks at the broker's topics once; records each new table found.
     *
     * @return the tables found by this call, in the order recorded
     */
    public List<ConnectorTables.Found> findNew(DimstreamConfig config) throws SQLException {
        if (config.connectors().isEmpty()) {
            return List.of();
        }
        DataSource db = ds.get();
        Set<String> known = new HashSet<>(); // connector and topic
        ConnectorTables.all(db).forEach(f -> known.add(f.connector() + "\n" + f.topic()));
        List<ConnectorTables.Found> found = new ArrayList<>();
        for (Candidate t : candidates(config)) {
            if (!known.add(t.connector().name() + "\n" + t.topic())) {
                continue;
            }
            Optional<ConnectorTables.Found> f = peek(t);
            if (f.isPresent() && ConnectorTables.record(db, f.get())) {
                LOG.info("connector {}: found table {} on topic {}: key {}, columns {}", t.connector().name(), t.table().qualified(),
                        t.topic(), f.get().key(), f.get().columns());
                found.add(f.get());
            }
        }
        return found;
    }

    /**
     * Whether a table a connector covers (and no hand-declared entity reads) has a record that gives
     * its shape: the service has something to start with. Reads no database, records nothing.
     */
    public boolean anyTable(DimstreamConfig config) {
        return candidates(config).stream().anyMatch(t -> peek(t).isPresent());
    }

    /** A topic a connector covers, and the table it carries. */
    private record Candidate(ConnectorConfig connector, String topic, ConnectorConfig.SourceTable table) {
    }

    /** Each connector's topics on the broker, but those a hand-declared entity reads, in connector and topic order. */
    private List<Candidate> candidates(DimstreamConfig config) {
        Set<String> declared = new HashSet<>();
        config.entities().forEach(e -> declared.add(e.topic()));
        Set<String> topics = topics();
        List<Candidate> out = new ArrayList<>();
        for (ConnectorConfig c : config.connectors()) {
            for (String topic : topics) {
                if (!declared.contains(topic)) {
                    c.tableOf(topic).ifPresent(table -> out.add(new Candidate(c, topic, table)));
                }
            }
        }
        return out;
    }

    private Set<String> topics() {
        try (Admin admin = Admin.create(clients.properties())) {
            return new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot list the topics of " + clients.bootstrapServers() + " to find the connectors' "
                    + "tables: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while listing topics", e);
        }
    }

    /** The table's shape from the topic's first records that give one; empty when none does (yet). */
    private Optional<ConnectorTables.Found> peek(Candidate t) {
        ConnectorConfig c = t.connector();
        String topic = t.topic();
        ConnectorConfig.SourceTable table = t.table();
        Map<String, Object> p = clients.properties();
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, PEEK_RECORDS);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "dimstream-connector-discovery");
        RecordShape last = null;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p);
             ShapeReader reader = ShapeReader.of(c, topic)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, PEEK)) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, PEEK);
            long until = System.nanoTime() + PEEK.toNanos();
            int seen = 0;
            while (System.nanoTime() < until && seen < PEEK_RECORDS && !atEnd(consumer, ends)) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() == null) {
                        continue; // a tombstone after a delete
                    }
                    seen++;
                    last = reader.shape(r);
                    if (last instanceof RecordShape.Shape s) {
                        return Optional.of(new ConnectorTables.Found(c.name(), topic, table.schema(), table.table(), s.key(), s.columns()));
                    }
                }
            }
        } catch (ConfigException e) {
            last = new RecordShape.Unreadable(e.getMessage());
        }
        if (last instanceof RecordShape.Unreadable u && reported.add(topic + "\n" + u.reason())) {
            LOG.warn("connector {}: table {} (topic {}) gets no history yet: {}", c.name(), table.qualified(), topic, u.reason());
        }
        return Optional.empty();
    }

    /** Whether every partition has been read to the end it had when the peek began (nothing more to look at). */
    private static boolean atEnd(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (consumer.position(e.getKey(), PEEK) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Reads one record's shape in the connector's format. */
    private interface ShapeReader extends AutoCloseable {
        RecordShape shape(ConsumerRecord<byte[], byte[]> r);

        @Override
        default void close() {
        }

        static ShapeReader of(ConnectorConfig c, String topic) {
            if (c.format() != EventFormat.DEBEZIUM_AVRO) {
                return r -> RecordShape.ofJson(r.key(), r.value());
            }
            AvroOptions avro = avroOptions(c);
            String at = "connector " + c.name() + ": entity.value-deserializer: ";
            Deserializer<GenericRecord> keys = Decoders.deserializer(avro, true, at);
            Deserializer<GenericRecord> values = Decoders.deserializer(avro, false, at);
            return new ShapeReader() {
                @Override
                public RecordShape shape(ConsumerRecord<byte[], byte[]> r) {
                    try {
                        return RecordShape.ofAvro(r.key() == null ? null : keys.deserialize(topic, r.key()),
                                values.deserialize(topic, r.value()));
                    } catch (RuntimeException e) {
                        return new RecordShape.Unreadable("a record does not decode with the connector's deserializer: " + e.getMessage());
                    }
                }

                @Override
                public void close() {
                    keys.close();
                    values.close();
                }
            };
        }
    }

    /** The connector's {@code entity: value-deserializer / deserializer-config}, or the defaults. */
    static AvroOptions avroOptions(ConnectorConfig c) {
        Object cls = c.entityOptions().get(ConfigKeys.ENTITY_VALUE_DESERIALIZER.name());
        Object settings = c.entityOptions().get(ConfigKeys.ENTITY_DESERIALIZER_CONFIG.name());
        Map<String, String> config = new LinkedHashMap<>();
        if (settings instanceof Map<?, ?> m) {
            m.forEach((k, v) -> config.put(String.valueOf(k), String.valueOf(v)));
        }
        return new AvroOptions(cls instanceof String s ? s : AvroOptions.DEFAULT_VALUE_DESERIALIZER, config);
    }
}
