package io.dimstream.app.sink;

import io.dimstream.app.change.TestChanges;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import java.util.OptionalLong;
import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.apply.BatchApplier;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Op;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.write.Scd2Writer;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Test data and table readers the sink tests share: a small customer entity and its change records. */
final class SinkFixtures {

    static final String SOURCE_TOPIC = "crm.customers";

    private SinkFixtures() {
    }

    /** customer_id key; email and city tracked; last_login type 1; unlimited lateness. */
    static EntitySpec customer(String name, DataSource ds) throws SQLException {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("customer_id", ColumnType.TEXT);
        cols.put("email", ColumnType.TEXT);
        cols.put("city", ColumnType.TEXT);
        cols.put("last_login", ColumnType.BIGINT);
        EntitySpec e = EntitySpec.builder()
                .name(name)
                .table("dim_" + name)
                .key(List.of("customer_id"))
                .tracked(List.of("email", "city"))
                .type1(List.of("last_login"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
        EntityTables.ensure(ds, e);
        return e;
    }

    static ChangeRecord upsert(String entity, String time, String id, String email, String city, long lastLogin, long srcOffset) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", id);
        data.put("email", email);
        data.put("city", city);
        data.put("last_login", lastLogin);
        return new ChangeRecord(entity, ChangeClass.CHANGED, Op.UPSERT, Instant.parse(time), data, SOURCE_TOPIC, 0, srcOffset);
    }

    static ChangeRecord delete(String entity, String time, String id, long srcOffset) {
        return new ChangeRecord(entity, ChangeClass.DELETED, Op.DELETE, Instant.parse(time), Map.of("customer_id", id),
                SOURCE_TOPIC, 0, srcOffset);
    }

    /** A record to send: key bytes (null: the first key part of the change) and value bytes. */
    record Raw(byte[] key, byte[] value) {
        static Raw of(ChangeRecord r) {
            return new Raw(ChangeCodec.key(List.of(String.valueOf(r.data().get("customer_id")))), TestChanges.encode(r));
        }
    }

    /** Sends the records in one Kafka transaction (as the exactly-once topology does). */
    static void produce(String bootstrap, String topic, List<Raw> records) {
        try (KafkaProducer<byte[], byte[]> p = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "sink-test-" + topic,
                ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(), new ByteArraySerializer())) {
            p.initTransactions();
            p.beginTransaction();
            for (Raw r : records) {
                p.send(new ProducerRecord<>(topic, r.key(), r.value()));
            }
            p.commitTransaction();
        }
    }

    static List<Raw> raws(List<ChangeRecord> changes) {
        return changes.stream().map(Raw::of).toList();
    }

    /** A version row as the tests compare it (lineage: the source offset). */
    record Row(String id, String email, String city, Long lastLogin, String validFrom, String validTo, boolean current,
               boolean deleted, Long sourceOffset) {
        static Row of(String id, String email, String city, Long lastLogin, String validFrom, String validTo, boolean current,
                      boolean deleted, Long sourceOffset) {
            return new Row(id, email, city, lastLogin, validFrom, validTo, current, deleted, sourceOffset);
        }
    }

    static List<Row> rows(DataSource ds, EntitySpec e) throws SQLException {
        List<Row> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT customer_id, email, city, last_login, valid_from, valid_to, is_current, is_deleted, source_offset FROM "
                        + e.table() + " ORDER BY customer_id, valid_from")) {
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), (Long) rs.getObject(4),
                            instant(rs, 5), instant(rs, 6), rs.getBoolean(7), rs.getBoolean(8), (Long) rs.getObject(9)));
                }
            }
        }
        return out;
    }

    /** Every column of every row as text, loaded_at and surrogate_key included. */
    static List<String> fullRows(DataSource ds, EntitySpec e) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT t::text FROM " + e.table() + " t ORDER BY customer_id, valid_from")) {
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    private static String instant(ResultSet rs, int col) throws SQLException {
        java.time.OffsetDateTime t = rs.getObject(col, java.time.OffsetDateTime.class);
        return t == null ? null : t.withOffsetSameInstant(ZoneOffset.UTC).toInstant().toString();
    }

    /** The sink's transaction of {@code group} over {@code entities} (their columns added while running tracked). */
    static SinkTransaction tx(String group, EntitySpec... entities) {
        return new SinkTransaction(new BatchApplier(TestPostgres.dataSource(), new Scd2Writer(TestPostgres.dataSource()),
                EntityShapes.of(TestPostgres.dataSource(), entities)), group);
    }

    /** One partition's batch as a group of one (the sink's single transaction path). */
    static SinkTransaction.GroupOutcome applyOne(SinkTransaction tx, TopicPartition tp, EntitySpec e, OptionalLong expected,
                                            List<ConsumerRecord<byte[], byte[]>> records, long next) throws SQLException {
        return applyOne(tx, tp, e, expected, records, next, 0, null);
    }

    static SinkTransaction.GroupOutcome applyOne(SinkTransaction tx, TopicPartition tp, EntitySpec e, OptionalLong expected,
                                            List<ConsumerRecord<byte[], byte[]>> records, long next, int partitions) throws SQLException {
        return applyOne(tx, tp, e, expected, records, next, partitions, null);
    }

    static SinkTransaction.GroupOutcome applyOne(SinkTransaction tx, TopicPartition tp, EntitySpec e, OptionalLong expected,
                                            List<ConsumerRecord<byte[], byte[]>> records, long next, int partitions, Long lagAfter)
            throws SQLException {
        return tx.apply(e, List.of(new SinkTransaction.PartitionBatch(tp, expected, records, next, lagAfter, partitions)));
    }

    /** Change records as consumer records of partition {@code tp} from {@code firstOffset} on. */
    static List<ConsumerRecord<byte[], byte[]>> records(TopicPartition tp, long firstOffset, List<ChangeRecord> changes) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>(changes.size());
        long o = firstOffset;
        for (ChangeRecord c : changes) {
            out.add(new ConsumerRecord<>(tp.topic(), tp.partition(), o++, Raw.of(c).key(), Raw.of(c).value()));
        }
        return out;
    }

    /** The stored next offsets of a group, by partition number, for one topic. */
    static Map<Integer, Long> storedOffsets(DataSource ds, String group, String topic) throws SQLException {
        Map<Integer, Long> out = new TreeMap<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT partition, next_offset FROM dimstream.sink_offsets WHERE consumer_group = ? AND topic = ?")) {
            p.setString(1, group);
            p.setString(2, topic);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.put(rs.getInt(1), rs.getLong(2));
                }
            }
        }
        return out;
    }

    /** Every offset row of a group, update time included, to show nothing was written. */
    static List<String> offsetRows(DataSource ds, String group) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT o::text FROM dimstream.sink_offsets o WHERE consumer_group = ? ORDER BY topic, partition")) {
            p.setString(1, group);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /** The end offsets of a topic's partitions (read_committed: the last stable offsets). */
    static Map<Integer, Long> endOffsets(String bootstrap, String topic) {
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo pi : c.partitionsFor(topic)) {
                tps.add(new TopicPartition(topic, pi.partition()));
            }
            Map<Integer, Long> out = new TreeMap<>();
            c.endOffsets(tps).forEach((tp, o) -> out.put(tp.partition(), o));
            return out;
        }
    }
}
