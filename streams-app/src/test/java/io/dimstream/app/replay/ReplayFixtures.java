package io.dimstream.app.replay;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/** Configs, a produced feed with its offsets and the model's events, whole-row reads. */
final class ReplayFixtures {

    private ReplayFixtures() {
    }


    static EntityPipeline pipeline(DimstreamConfig config, String entity) {
        return EntityPipeline.of("dimstream", config.entity(entity));
    }

    /** A produced record: where it landed, and the valid event it carries (null when malformed). */
    record Produced(int partition, long offset, Event event) {
    }

    /**
     * Produces the feed in order and returns, per record, where it landed and its event with
     * {@code seq} = its produce rank + 1 (a key's records share a partition, so that is the
     * key's arrival order, as the sink and the replay see it).
     */
    static List<Produced> produce(String bootstrap, String topic, EntitySpec spec, List<CustomerFeed.FeedRecord> feed)
            throws ExecutionException, InterruptedException {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        EventValidator validator = new EventValidator(spec);
        List<Produced> out = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
            for (CustomerFeed.FeedRecord r : feed) {
                sent.add(producer.send(new ProducerRecord<>(topic, r.key(), r.value())));
            }
            for (int i = 0; i < feed.size(); i++) {
                RecordMetadata md = sent.get(i).get();
                NativeEventJson.Parsed parsed = NativeEventJson.parse(feed.get(i).valueText(), i + 1,
                        Source.kafka(topic, md.partition(), md.offset()));
                Event ev = parsed.event() != null && validator.validate(parsed.event()).ok() ? parsed.event() : null;
                out.add(new Produced(md.partition(), md.offset(), ev));
            }
        }
        return out;
    }

    static List<Event> events(List<Produced> produced) {
        return produced.stream().map(Produced::event).filter(java.util.Objects::nonNull).toList();
    }

    /** Every column of every row, lineage and loaded_at included, as JSON text, in key and valid_from order. */
    static List<String> wholeRows(DataSource ds, String relation) throws SQLException {
        return strings(ds, "SELECT to_jsonb(t)::text FROM " + relation + " t ORDER BY customer_id, valid_from");
    }

    static List<String> strings(DataSource ds, String sql) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql); ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    static String table(EntitySpec spec) {
        return Sql.table(spec.table());
    }
}
