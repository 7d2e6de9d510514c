package io.dimstream.db.erase;

import static io.dimstream.db.jobs.JobsFixtures.up;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.apply.Applied;
import io.dimstream.db.apply.Batch;
import io.dimstream.db.apply.BatchApplier;
import io.dimstream.db.apply.Outcome;
import io.dimstream.db.apply.Position;
import io.dimstream.db.apply.Prepared;
import io.dimstream.db.apply.Step;
import io.dimstream.db.apply.WriterLock;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Source;
import io.dimstream.db.jobs.AuditLog;
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.jobs.JobsFixtures;
import io.dimstream.db.jobs.QuarantineActions;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplayKeys;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.read.Finding;
import io.dimstream.db.read.IntegrityReport;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkReject;
import io.dimstream.db.sink.SinkRejects;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.status.IntegrityRuns;
import io.dimstream.db.testing.DatabaseSearch;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * An erased key leaves no text of itself or its values anywhere in the database (every column of every
 * table of every schema, and the planner's statistics), while another key's rows stay whole; its
 * tombstone makes the one apply pipeline drop its events when they come again.
 */
class ErasureTest {

    private static final String GONE = "ERASE-ME-q7";
    private static final String KEPT = "KEEP-ME-q7";
    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);
    private final ReplayJobs jobs = new ReplayJobs(ds);

    /** The texts of a person: the key and each distinctive value the events carry. */
    private static List<String> texts(String key) {
        String id = key.toLowerCase(Locale.ROOT);
        return List.of(key, id + "@example.com", id + "+new@example.com", "Town-" + key, "City-" + key);
    }

    /** The key's events: in order, a late one placed inside its history, a re-assertion, and one beyond the 30-day horizon. */
    private static List<List<Event>> batches(String key, long seq) {
        String id = key.toLowerCase(Locale.ROOT);
        return List.of(
                List.of(up(key, 1, id + "@example.com", "Town-" + key, 10, seq), up(key, 5, id + "+new@example.com", "Town-" + key, 11, seq + 1)),
                List.of(up(key, 3, id + "@example.com", "City-" + key, 12, seq + 2), up(key, 7, id + "+new@example.com", "Town-" + key, 13, seq + 3)),
                List.of(up(key, 60, id + "+new@example.com", "City-" + key, 14, seq + 4)),
                List.of(up(key, 20, id + "@example.com", "City-" + key, 15, seq + 5)));
    }

    private final List<Long> shadowJobs = new ArrayList<>();

    private long shadowJob(EntitySpec spec, int i) {
        return shadowJobs.get(i);
    }

    /**
     * Both keys into every place dimstream keeps a key: the live table and its memory (through the
     * writer, late events and a quarantined one included), a retired table (a shadow job swapped in
     * after the first batch), a shadow table left by a second shadow job, the transaction-time history
     * ({@code <table>_superseded}, which the writer's late events fill through the table's trigger), the quarantine and its audited discard, a repair job listing both
     * keys, a sink reject and DLQ records (a JSON one, and one not JSON at all), an integrity finding.
     */
    private void fill(EntitySpec spec, String... keys) throws Exception {
        List<List<List<Event>>> perKey = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            perKey.add(batches(keys[i], 100L * (i + 1)));
        }
        long job0 = jobs.submit(spec.name(), "crm", ReplaySource.parse("earliest"), ReplayTarget.SHADOW, false, "ops");
        EntitySpec shadow0 = ShadowTables.shadowSpec(spec, job0);
        ShadowTables.create(ds, shadow0);
        writer.apply(spec, batch(perKey, 0));
        writer.apply(shadow0, batch(perKey, 0));
        Transactions.run(ds, c -> ShadowTables.swap(c, writer, spec, shadow0, job0));
        shadowJobs.add(job0);
        for (int b = 1; b < 4; b++) {
            writer.apply(spec, batch(perKey, b));
        }
        long job1 = jobs.submit(spec.name(), "crm", ReplaySource.parse("earliest"), ReplayTarget.SHADOW, false, "ops");
        EntitySpec shadow1 = ShadowTables.shadowSpec(spec, job1);
        ShadowTables.create(ds, shadow1);
        for (int b = 0; b < 4; b++) {
            writer.apply(shadow1, batch(perKey, b));
        }
        shadowJobs.add(job1);
        jobs.submit(spec.name(), "crm", ReplaySource.parse("earliest"), ReplayTarget.LIVE,
                new ReplayKeys(Arrays.stream(keys).map(List::of).toList(), null), "ops");
        QuarantineActions quarantine = new QuarantineActions(ds, writer);
        for (QuarantineActions.QuarantinedEvent q : quarantine.list(spec.name(), "pending", null, 10)) {
            quarantine.discard(q.id(), spec.name(), "ops");
        }
        List<Finding> findings = new ArrayList<>();
        for (int i = 0; i < keys.length; i++) {
            records(spec, keys[i], 10L * i);
            findings.add(new Finding(Finding.Kind.GAP, Map.of("customer_id", keys[i]), Instant.parse("2025-08-02T00:00:00Z"),
                    "a gap before " + texts(keys[i]).get(3)));
        }
        new IntegrityRuns(ds).save(new IntegrityReport(spec.name(), 10, findings), "ops", 5);
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("ANALYZE " + Sql.table(spec.table()) + ", " + Sql.table(spec.memoryTable()) + ", dimstream.quarantine, dimstream.dlq_records");
        }
    }

    private static List<Event> batch(List<List<List<Event>>> perKey, int b) {
        List<Event> out = new ArrayList<>();
        perKey.forEach(k -> out.addAll(k.get(b)));
        return out;
    }

    /** A sink reject (a changes-topic record, JSON, its reason quoting a value) and two DLQ records of the key. */
    private void records(EntitySpec spec, String key, long offset) throws SQLException {
        List<String> t = texts(key);
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        byte[] change = ("{\"entity\":\"" + spec.name() + "\",\"class\":\"CHANGED\",\"op\":\"upsert\",\"event_time\":"
                + "\"2025-08-02T00:00:00.000000Z\",\"data\":{\"customer_id\":\"" + key + "\",\"email\":\"" + t.get(1) + "\",\"city\":\""
                + t.get(3) + "\",\"last_login\":1}}").getBytes(StandardCharsets.UTF_8);
        byte[] nativeEvent = ("{\"op\":\"upsert\",\"event_time\":\"not a time\",\"data\":{\"customer_id\":\"" + key
                + "\",\"email\":\"" + t.get(2) + "\"}}").getBytes(StandardCharsets.UTF_8);
        byte[] garbage = ("\u0001\u0002garbage " + key + " " + t.get(4)).getBytes(StandardCharsets.UTF_8);
        Transactions.run(ds, c -> {
            SinkRejects.insert(c, "erase-test", List.of(new SinkReject(new PartitionRef("changes", 0), offset, spec.name(),
                    "value too long for type character varying(5): " + t.get(3), "22001", keyBytes, change)));
            Instant at = Instant.parse("2025-08-03T00:00:00Z");
            DlqRecords.mirror(c, List.of(
                    new DlqRecords.Incoming(spec.name(), "crm", 0, offset, "crm.dlq", 0, offset, keyBytes, nativeEvent,
                            List.of(new DlqRecords.Header("dimstream.error", ("event_time of " + key + " is not a time").getBytes(StandardCharsets.UTF_8))),
                            "event_time: not a time (" + t.get(2) + ")", at),
                    new DlqRecords.Incoming(spec.name(), "crm", 0, offset + 1, "crm.dlq", 0, offset + 1, null, garbage, List.of(),
                            "not JSON", at)));
        });
    }

    private static List<String> tablesOf(List<String> hits) {
        return hits.stream().filter(h -> !h.startsWith("pg_stats")).map(h -> h.substring(0, h.lastIndexOf('.', h.indexOf(':')))).distinct().toList();
    }

    /** Rows of dimstream's bookkeeping, which an erasure rewrites (compared one by one instead). */
    private static boolean bookkeeping(String row) {
        return row.startsWith("dimstream.admin_audit ") || row.startsWith("dimstream.replay_jobs ") || row.startsWith("dimstream.integrity_runs ");
    }

    @Test
    void anErasedKeyLeavesNoTextInAnyTableOfAnySchemaAndAnotherKeyStaysWhole() throws Exception {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "erase_all", Optional.of(Duration.ofDays(30)));
        fill(spec, GONE, KEPT);
        List<String> before = DatabaseSearch.hits(ds, texts(GONE));
        String retired = ShadowTables.retiredTable(spec, shadowJob(spec, 0));
        EntitySpec shadow = ShadowTables.shadowSpec(spec, shadowJob(spec, 1));
        assertThat(tablesOf(before)).as("the key is in every place an erasure must reach before it").containsExactlyInAnyOrder(
                "public." + spec.table(), "public." + spec.memoryTable(), "public." + spec.table() + "_superseded", "public." + retired,
                "public." + retired + "_events", "public." + shadow.table(), "public." + shadow.memoryTable(), "dimstream.quarantine",
                "dimstream.sink_rejects", "dimstream.dlq_records", "dimstream.replay_jobs", "dimstream.admin_audit", "dimstream.integrity_runs");
        assertThat(before).as("and in the planner's statistics").contains("pg_stats of public." + spec.table() + ".customer_id contains \"" + GONE
                + "\"", "pg_stats of dimstream.quarantine.event_key contains \"" + GONE + "\"");
        List<String> keptRows = DatabaseSearch.rows(ds, texts(KEPT)).stream().filter(r -> !bookkeeping(r)).toList();

        Erasure.Report report = new Erasure(ds).erase(spec, List.of(List.of(GONE)), true, "ops-anna");

        Map<String, Long> removed = new LinkedHashMap<>();
        // as the writer left them batch by batch: 4 versions, 4 remembered events (the live table's and the
        // shadow's alike); the retired table holds the first batch's 2 and 2; the late event's rewrite of a closed
        // version was kept as superseded (the in-order closes keep nothing: their open images are the closed rows)
        removed.put(Erasure.VERSIONS, 4L);
        removed.put(Erasure.MEMORY, 4L);
        removed.put(Erasure.SUPERSEDED, 1L);
        removed.put(Erasure.SHADOWS, 2L + 2L + 4L + 4L);
        removed.put(Erasure.QUARANTINE, 1L);
        removed.put(Erasure.REJECTS, 1L);
        removed.put(Erasure.DLQ, 2L);
        removed.put(Erasure.REPAIR_JOBS, 1L);
        removed.put(Erasure.AUDIT, 2L);
        removed.put(Erasure.FINDINGS, 1L);
        assertThat(report).isEqualTo(new Erasure.Report(spec.name(), 1, removed, 1, true));
        assertThat(DatabaseSearch.hits(ds, texts(GONE))).isEmpty();
        assertThat(DatabaseSearch.rows(ds, texts(KEPT)).stream().filter(r -> !bookkeeping(r)).toList()).isEqualTo(keptRows);
        assertThat(JobsFixtures.query(ds, "SELECT key_filter::text FROM dimstream.replay_jobs WHERE entity = ? AND key_filter IS NOT NULL",
                spec.name())).isEqualTo(List.of(List.of("{\"keys\": [[\"" + KEPT + "\"]]}")));
        assertThat(JobsFixtures.query(ds, "SELECT action, detail ->> 'key', detail ->> 'keys' FROM dimstream.admin_audit "
                + "WHERE detail ->> 'entity' = ? AND action <> 'erase' ORDER BY id", spec.name())).isEqualTo(List.of(
                        Arrays.asList("replay.submit", null, null),
                        Arrays.asList("replay.submit", null, null),
                        Arrays.asList("replay.submit", null, "keys " + KEPT),
                        Arrays.asList("quarantine.discard", "{\"customer_id\": \"" + KEPT + "\"}", null),
                        Arrays.asList("quarantine.discard", "(erased)", null)));
        assertThat(JobsFixtures.query(ds, "SELECT jsonb_array_length(findings), findings -> 0 -> 'key' ->> 'customer_id', truncated "
                + "FROM dimstream.integrity_runs WHERE entity = ?", spec.name())).isEqualTo(List.of(List.of(1, KEPT, true)));
        List<AuditLog.Entry> erase = new AuditLog(ds).page("ops-anna", "erase", null, 10);
        assertThat(erase).hasSize(1);
        assertThat(List.of(erase.get(0).action(), erase.get(0).target(), erase.get(0).detail())).isEqualTo(List.of("erase",
                "entity:" + spec.name(), "{\"keys\": 1, \"entity\": \"" + spec.name() + "\", \"removed\": {\"versions\": 4, \"DLQ mirror\": 2, "
                        + "\"quarantine\": 1, \"event memory\": 4, \"sink rejects\": 1, \"audit entries\": 2, \"integrity findings\": 1, "
                        + "\"superseded versions\": 1, \"repair job key lists\": 1, \"shadow and retired tables\": 12}, \"tombstones\": 1}"));
    }

    @Test
    void theApplyPipelineDropsAndCountsEveryEventOfATombstonedKeyAndAKeyErasedWithoutOneComesBack() throws Exception {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "erase_tomb", Optional.of(Duration.ofDays(30)));
        BatchApplier applier = new BatchApplier(ds, writer, EntityShapes.of(ds, spec));
        List<Event> tomb = batch(List.of(batches("TOMB-q7", 100)), 0, 4);
        List<Event> again = batch(List.of(batches("AGAIN-q7", 200)), 0, 4);
        List<Event> other = batch(List.of(batches("OTHER-q7", 300)), 0, 4);
        ApplyResult tombFirst = apply(applier, spec, tomb);
        ApplyResult againFirst = apply(applier, spec, again);
        apply(applier, spec, other);
        List<String> againRows = DatabaseSearch.rows(ds, List.of("AGAIN-q7"));
        List<String> otherRows = DatabaseSearch.rows(ds, texts("OTHER-q7"));

        new Erasure(ds).erase(spec, List.of(List.of("TOMB-q7")), true, "ops");
        new Erasure(ds).erase(spec, List.of(List.of("AGAIN-q7")), false, "ops");
        ApplyResult tombReplayed = apply(applier, spec, tomb);
        ApplyResult tombTyped = applyTyped(applier, spec, tomb);
        ApplyResult againReplayed = apply(applier, spec, again);

        assertThat(tombFirst).isEqualTo(ApplyResult.builder().received(6).newKeys(1).changed(2).unchanged(1).late(1).quarantined(1)
                .rowsInserted(4).build());
        assertThat(List.of(tombReplayed, tombTyped)).as("untyped (load, replay) and typed (the sink's change records)")
                .isEqualTo(List.of(ApplyResult.builder().received(6).erased(6).build(), ApplyResult.builder().received(6).erased(6).build()));
        assertThat(DatabaseSearch.hits(ds, texts("TOMB-q7"))).isEmpty();
        assertThat(againReplayed).isEqualTo(againFirst);
        assertThat(withoutLoadTimes(DatabaseSearch.rows(ds, List.of("AGAIN-q7")))).isEqualTo(withoutLoadTimes(againRows));
        assertThat(DatabaseSearch.rows(ds, texts("OTHER-q7"))).isEqualTo(otherRows);
    }

    private static List<Event> batch(List<List<List<Event>>> perKey, int from, int to) {
        List<Event> out = new ArrayList<>();
        for (int b = from; b < to; b++) {
            out.addAll(batch(perKey, b));
        }
        return out;
    }

    /** One batch of events through the one apply pipeline, as {@code load} gives it (no position). */
    private static ApplyResult apply(BatchApplier applier, EntitySpec spec, List<Event> events) throws SQLException {
        Outcome<Prepared, Void> out = applier.apply(Batch.of(spec.name(), WriterLock.Mode.EXCLUSIVE,
                shape -> Prepared.of(List.of(new Step.Events(events))), "a test batch"), Position.NONE);
        Applied<Prepared> applied = ((Outcome.Done<Prepared, Void>) out).applied();
        return applied.events();
    }

    /** The events validated first, as the sink hands the topology's typed change records to the pipeline. */
    private static ApplyResult applyTyped(BatchApplier applier, EntitySpec spec, List<Event> events) throws SQLException {
        Outcome<Prepared, Void> out = applier.apply(Batch.of(spec.name(), WriterLock.Mode.STREAMING, shape -> {
            EventValidator v = new EventValidator(shape);
            return Prepared.of(List.of(new Step.TypedEvents(events.stream().map(e -> v.validate(e).event()).toList())));
        }, "a typed test batch"), Position.NONE);
        return ((Outcome.Done<Prepared, Void>) out).applied().events();
    }

    /** Rows with the times they were written and serial ids left out (a re-applied key is written anew). */
    private static List<String> withoutLoadTimes(List<String> rows) {
        return rows.stream().map(r -> r.replaceFirst("^(dimstream\\.quarantine \\{\"id\": )\\d+", "$1-").replaceAll("\"(loaded_at|known_from|end_known_from|quarantined_at|resolved_at|at|received_at|registered_at)\": \"[^\"]*\"",
                "\"$1\": \"-\"")).toList();
    }

    @Test
    void aKeyLongerThanItsVarcharColumnErasesNoOtherKeyAndIsRefusedWhenRead() throws Exception {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("code", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        EntitySpec spec = EntitySpec.builder().name("erase_varchar").table("erase_varchar").key(List.of("code")).tracked(List.of("name"))
                .type1(List.of()).columns(cols).modifiers(Map.of("code", new TypeModifier.Length(5))).latenessHorizon(Optional.empty())
                .build();
        EntityTables.ensure(ds, spec);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("code", "ABCDE");
        data.put("name", "Ada");
        writer.apply(spec, List.of(Event.upsert(Instant.parse("2025-01-01T00:00:00Z"), data, 1, Source.kafka("t", 0, 1L))));
        List<String> before = DatabaseSearch.rows(ds, List.of("ABCDE"));

        Erasure.Report r = new Erasure(ds).erase(spec, List.of(List.of("ABCDEFG")), false, "ops");

        assertThat(r.total()).as("a cast to varchar(5) would have cut ABCDEFG to ABCDE").isZero();
        assertThat(DatabaseSearch.rows(ds, List.of("ABCDE"))).isEqualTo(before);
        assertThatThrownBy(() -> ReplayKeys.parseKey("--key", "ABCDEFG", spec))
                .hasMessage("--key: key column code: text of 7 characters is too long for character varying(5) (at most 5)");
    }
}
