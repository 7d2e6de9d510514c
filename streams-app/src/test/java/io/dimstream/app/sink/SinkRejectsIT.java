package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import io.dimstream.app.change.TestChanges;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.app.topology.TopicPlanner;
import static io.dimstream.app.sink.SinkFixtures.upsert;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.sink.SinkFixtures.Raw;
import io.dimstream.app.sink.SinkFixtures.Row;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Op;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Records the sink cannot apply land in dimstream.sink_rejects; the records around them are applied. */
class SinkRejectsIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();
    private static final DataSource DS = TestPostgres.dataSource();

    /** A sink_rejects row as compared: topic, partition, offset, entity, reason, value as text. */
    private record Reject(String topic, int partition, long offset, String entity, String reason, String value) {
    }

    private static List<Reject> rejects(String group) throws Exception {
        List<Reject> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT topic, partition, \"offset\", entity, reason, convert_from(value, 'UTF8') FROM dimstream.sink_rejects "
                        + "WHERE consumer_group = ? ORDER BY topic, partition, \"offset\"")) {
            p.setString(1, group);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(new Reject(rs.getString(1), rs.getInt(2), rs.getLong(3), rs.getString(4), rs.getString(5),
                            rs.getString(6)));
                }
            }
        }
        return out;
    }

    @Test
    void malformedAndInvalidRecordsAreKeptWithReasonAndOffsetWhileTheOthersApply() throws Exception {
        String name = "rejects_customer";
        EntitySpec e = SinkFixtures.customer(name, DS);
        String topic = ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name);
        KAFKA.get().createTopics(List.of(TopicPlanner.changesTopic(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, name, 1, (short) 1)));
        String group = "rejects";

        Map<String, Object> nullKey = new LinkedHashMap<>();
        nullKey.put("customer_id", null);
        nullKey.put("email", "n@x.io");
        ChangeRecord invalid = new ChangeRecord(name, ChangeClass.NEW, Op.UPSERT, Instant.parse("2025-08-01T11:00:00Z"), nullKey,
                SinkFixtures.SOURCE_TOPIC, 0, 3);
        ChangeRecord otherEntity = upsert("supplier", "2025-08-01T12:00:00Z", "S1", "s@x.io", "Kiel", 1, 4);
        String notJson = "{\"entity\": \"rejects_customer\", \"class\": ";
        String noTime = "{\"entity\":\"rejects_customer\",\"class\":\"NEW\",\"format\":2,\"shape\":\"test-other-shape\",\"op\":\"upsert\",\"data\":{\"customer_id\":\"C9\"},"
                + "\"source\":{\"topic\":\"crm.customers\",\"partition\":0,\"offset\":5}}";
        List<Raw> records = List.of(
                Raw.of(upsert(name, "2025-08-01T09:00:00Z", "C1", "a@x.io", "Paris", 1, 1)),         // offset 0
                new Raw("[\"C7\"]".getBytes(StandardCharsets.UTF_8), notJson.getBytes(StandardCharsets.UTF_8)), // 1
                Raw.of(upsert(name, "2025-08-02T09:00:00Z", "C1", "a@x.io", "Lyon", 2, 2)),          // 2
                new Raw("[null]".getBytes(StandardCharsets.UTF_8), TestChanges.encode(invalid)),      // 3
                Raw.of(otherEntity),                                                                  // 4
                new Raw("[\"C9\"]".getBytes(StandardCharsets.UTF_8), noTime.getBytes(StandardCharsets.UTF_8)), // 5
                Raw.of(upsert(name, "2025-08-01T10:00:00Z", "C2", "b@x.io", "Rome", 1, 6)));         // 6
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (ChangeSink sink = new ChangeSink(SinkSettingsFromConfig.defaults().withGroupId(group), KAFKA.get().bootstrapServers(), List.of(e), DS,
                new SinkMetrics(registry)).start()) {
            SinkFixtures.produce(KAFKA.get().bootstrapServers(), topic, records);

            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                        Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-02T09:00:00Z", false, false, 1L),
                        Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-02T09:00:00Z", null, true, false, 2L),
                        Row.of("C2", "b@x.io", "Rome", 1L, "2025-08-01T10:00:00Z", null, true, false, 6L));
                assertThat(rejects(group)).containsExactly(
                        new Reject(topic, 0, 1, name, "change record is not JSON: Unexpected end-of-input within/between Object entries",
                                notJson),
                        new Reject(topic, 0, 3, name, "key column 'customer_id' is NULL", new String(TestChanges.encode(invalid),
                                StandardCharsets.UTF_8)),
                        new Reject(topic, 0, 4, name, "change of entity 'supplier' on the changes topic of entity '" + name + "'",
                                new String(TestChanges.encode(otherEntity), StandardCharsets.UTF_8)),
                        new Reject(topic, 0, 5, name, "malformed change record: a required field is missing (entity, class, op, event_time, "
                                + "data and source are required)", noTime));
                assertThat(SinkFixtures.storedOffsets(DS, group, topic)).isEqualTo(SinkFixtures.endOffsets(KAFKA.get().bootstrapServers(), topic));
            });
            assertThat(registry.get(SinkMetrics.REJECTS).tag("entity", name).counter().count()).isEqualTo(4.0);
        }
    }
}
