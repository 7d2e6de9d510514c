package io.dimstream.app.sink;

import io.dimstream.app.service.SinkSettingsFromConfig;
import io.dimstream.app.change.TestChanges;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.ChangeTopics;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.Unchanged;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.Scd2Writer;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The sink reads the changes topic's typed form straight into typed events; a record of another
 * shape of its entity is validated again; a record without the typed form (no {@code format} field:
 * nothing dimstream writes) is refused to the rejects naming why, the records around it landing.
 * Real PostgreSQL, no broker.
 */
class SinkTypedChangesTest {

    private static final DataSource DS = TestPostgres.dataSource();

    @Test
    void recordsWithoutTheTypedFormAreRefusedNamingWhyAndTheTypedOnesAroundThemLand() throws Exception {
        EntitySpec e = SinkFixtures.customer("upgrade_mix", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        List<byte[]> untyped = fixture("untyped-v1.jsonl");
        Map<String, Object> c1 = new LinkedHashMap<>();
        c1.put("customer_id", "C1");
        c1.put("email", "a@x.io");
        c1.put("city", "Lyon");
        c1.put("last_login", 2L);
        byte[] typedUpsert = typed(e, Event.upsert(Instant.parse("2025-08-01T10:00:00Z"), c1, 0, Source.kafka("crm.customers", 0, 3)),
                ChangeClass.NEW);
        byte[] typedDelete = typed(e, Event.delete(Instant.parse("2025-08-01T11:00:00Z"), Map.of("customer_id", "C1"), 0,
                Source.kafka("crm.customers", 0, 5)), ChangeClass.DELETED);
        byte[] badTyped = new String(typed(e, Event.upsert(Instant.parse("2025-08-01T12:00:00Z"), Map.of("customer_id", "C3", "email", "c@x.io",
                "city", "Nice", "last_login", 7L), 0, Source.kafka("crm.customers", 0, 6)), ChangeClass.NEW), StandardCharsets.UTF_8)
                .replace("\"last_login\":7", "\"last_login\":\"seven\"").getBytes(StandardCharsets.UTF_8);
        List<byte[]> values = List.of(untyped.get(0), untyped.get(1), typedUpsert, untyped.get(2), typedDelete, badTyped);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            records.add(new ConsumerRecord<>(tp.topic(), 0, i, null, values.get(i)));
        }
        SinkTransaction tx = SinkFixtures.tx("untyped-refused", e);

        SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(), records, values.size());

        assertThat(out).isInstanceOfSatisfying(SinkTransaction.Committed.class, c -> {
            assertThat(c.rejects()).isEqualTo(4);
            assertThat(c.disagreements()).as("the topology's classes are the writer's").isEmpty();
            assertThat(c.validated()).as("no record of another shape").isEmpty();
        });
        assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                SinkFixtures.Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-01T10:00:00Z", "2025-08-01T11:00:00Z", false, false, 3L),
                SinkFixtures.Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-01T11:00:00Z", null, false, true, 5L));
        String notTyped = "malformed change record: no \"format\" field: not a change record of the typed form the topology writes";
        assertThat(rejects("untyped-refused")).containsExactly("0|0|" + notTyped, "0|1|" + notTyped, "0|3|" + notTyped,
                "0|5|malformed change record: column 'last_login': \"seven\" is not a bigint as the typed form writes it");
        assertThat(SinkFixtures.storedOffsets(DS, "untyped-refused", tp.topic())).isEqualTo(Map.of(0, 6L));
    }

    @Test
    void classesTheWriterJudgesOtherwiseAreCountedPerClassAndExported() throws Exception {
        EntitySpec e = SinkFixtures.customer("class_disagree", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        Map<String, Object> c9 = Map.of("customer_id", "C9", "email", "n@x.io", "city", "Bern", "last_login", 1L);
        Map<String, Object> c9Again = Map.of("customer_id", "C9", "email", "n@x.io", "city", "Bern", "last_login", 1L);
        // the topology calls a key PostgreSQL has never seen CHANGED (its store was ahead of the table),
        // then a same-valued event at a later time UNCHANGED: the writer says NEW, then UNCHANGED
        List<byte[]> values = List.of(
                typed(e, Event.upsert(Instant.parse("2025-08-01T09:00:00Z"), c9, 0, Source.kafka("crm.customers", 0, 1)), ChangeClass.CHANGED),
                typed(e, Event.upsert(Instant.parse("2025-08-01T10:00:00Z"), c9Again, 0, Source.kafka("crm.customers", 0, 2)), ChangeClass.UNCHANGED));
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            records.add(new ConsumerRecord<>(tp.topic(), 0, i, null, values.get(i)));
        }
        SinkTransaction tx = SinkFixtures.tx("class-disagree", e);

        SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(), records, values.size());

        assertThat(out).isInstanceOfSatisfying(SinkTransaction.Committed.class, c -> {
            assertThat(c.result().newKeys()).isEqualTo(1);
            assertThat(c.result().unchanged()).isEqualTo(1);
            assertThat(c.disagreements()).isEqualTo(Map.of(ChangeClass.NEW, 1, ChangeClass.CHANGED, 1));
            io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
            new SinkMetrics(registry).classDisagreements(e.name(), c.disagreements());
            assertThat(registry.find(SinkMetrics.DISAGREEMENTS).counters().stream()
                    .map(m -> m.getId().getTag("entity") + "|" + m.getId().getTag("class") + "|" + m.count()).sorted().toList())
                    .containsExactly("class_disagree|changed|1.0", "class_disagree|new|1.0");
        });
        assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                SinkFixtures.Row.of("C9", "n@x.io", "Bern", 1L, "2025-08-01T09:00:00Z", null, true, false, 1L));
    }

    @Test
    void typedRecordsOfAnotherShapeAreValidatedAgainCountedAndExported() throws Exception {
        EntitySpec e = SinkFixtures.customer("other_shape", DS);
        TopicPartition tp = new TopicPartition(ChangeTopics.name(SinkSettingsFromConfig.DEFAULT_APPLICATION_ID, e.name()), 0);
        byte[] asWritten = typed(e, Event.upsert(Instant.parse("2025-08-01T09:00:00Z"),
                Map.of("customer_id", "C1", "email", "a@x.io", "city", "Paris", "last_login", 1L), 0, Source.kafka("crm.customers", 0, 1)),
                ChangeClass.NEW);
        String other = new String(typed(e, Event.upsert(Instant.parse("2025-08-01T10:00:00Z"),
                Map.of("customer_id", "C1", "email", "a@x.io", "city", "Lyon", "last_login", 2L), 0, Source.kafka("crm.customers", 0, 2)),
                ChangeClass.CHANGED), StandardCharsets.UTF_8);
        // the shape of an instance that knows a column this one does not (yet): same values, another fingerprint
        String shape = other.replaceAll("(?s).*\"shape\":\"([^\"]*)\".*", "$1");
        assertThat(shape).isNotEqualTo(other);
        byte[] otherShape = other.replace("\"shape\":\"" + shape + "\"", "\"shape\":\"" + "0".repeat(shape.length()) + "\"")
                .getBytes(StandardCharsets.UTF_8);
        List<byte[]> values = List.of(asWritten, otherShape);
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            records.add(new ConsumerRecord<>(tp.topic(), 0, i, null, values.get(i)));
        }
        SinkTransaction tx = SinkFixtures.tx("other-shape", e);

        SinkTransaction.GroupOutcome out = SinkFixtures.applyOne(tx, tp, e, OptionalLong.empty(), records, values.size());

        assertThat(out).isInstanceOfSatisfying(SinkTransaction.Committed.class, c -> {
            assertThat(c.rejects()).isZero();
            assertThat(c.validated()).isEqualTo(Map.of("other-shape", 1));
            io.micrometer.core.instrument.simple.SimpleMeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
            SinkMetrics metrics = new SinkMetrics(registry);
            metrics.recordsValidated(e.name(), c.validated());
            metrics.recordsValidated(e.name(), Map.of());
            assertThat(registry.find(SinkMetrics.VALIDATED).counters().stream()
                    .map(m -> m.getId().getTag("entity") + "|" + m.getId().getTag("reason") + "|" + m.count()).sorted().toList())
                    .containsExactly("other_shape|other-shape|1.0");
        });
        assertThat(SinkFixtures.rows(DS, e)).containsExactly(
                SinkFixtures.Row.of("C1", "a@x.io", "Paris", 1L, "2025-08-01T09:00:00Z", "2025-08-01T10:00:00Z", false, false, 1L),
                SinkFixtures.Row.of("C1", "a@x.io", "Lyon", 2L, "2025-08-01T10:00:00Z", null, true, false, 2L));
    }



    /** The typed change record the topology writes of an event it validated. */
    private static byte[] typed(EntitySpec e, Event event, ChangeClass cls) {
        TypedEvent te = new EventValidator(e).validate(event).event();
        return ChangeCodec.withClass(ChangeCodec.encodeUnclassified(e, te, Map.of(), Map.of()), ChangeCodec.classOffset(e.name()), cls);
    }

    private static List<byte[]> fixture(String name) throws Exception {
        try (InputStream in = SinkTypedChangesTest.class.getResourceAsStream("/changes/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(l -> l.getBytes(StandardCharsets.UTF_8)).toList();
        }
    }

    private static List<String> rejects(String group) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement("SELECT partition, \"offset\", reason "
                + "FROM dimstream.sink_rejects WHERE consumer_group = ? ORDER BY partition, \"offset\"")) {
            p.setString(1, group);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getInt(1) + "|" + rs.getLong(2) + "|" + rs.getString(3));
                }
            }
        }
        return out;
    }
}
