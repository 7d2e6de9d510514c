package io.dimstream.app.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.app.testing.FlakyDataSource;
import io.dimstream.db.connect.ForwardingDataSource;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TimeTexts;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The load loop: batches land in order with every refused line reported in line order, and a
 * failure on either side (the input breaking off, the database refusing a batch) stops the load
 * after exactly the batches before it, with the report saying how far it got, and reads no row
 * after the refused batch. Real PostgreSQL; the refusal is played by {@link FlakyDataSource}.
 */
class EventFileLoaderTest {

    private static final DataSource DS = TestPostgres.dataSource();
    private static final Instant LOAD_START = Instant.parse("2026-12-02T00:00:00Z");

    @Test
    void batchesOfAFileLandInOrderWithEveryRefusedLineReportedInLineOrder() throws Exception {
        EntitySpec e = entity("load_overlap_whole");
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 35; i++) {
            lines.add(i == 12 ? "{not json" : i == 20 ? "" : i == 27 ? "[27]" : upsert(i));
        }
        LoadReport report = new EventFileLoader(DS, e, 10, 1).load(reader(lines), "f.jsonl", LOAD_START);

        assertThat(report.lines()).isEqualTo(35);
        assertThat(report.batches()).isEqualTo(4); // 32 events: 10, 10, 10, 2
        assertThat(report.parseRejections()).extracting(Rejection::source).containsExactly(
                Source.line("f.jsonl", 12), Source.line("f.jsonl", 27));
        assertThat(report.result().newKeys()).isEqualTo(32);
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 35; i++) {
            if (i != 12 && i != 20 && i != 27) {
                expected.add(row(i));
            }
        }
        assertThat(rows(e)).containsExactlyElementsOf(expected);
    }

    @Test
    void aBatchEndsAtItsEstimatedHeapBeforeItsCount() throws Exception {
        EntitySpec e = entity("load_heap_bound");
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 35; i++) {
            lines.add(upsert(i + 100)); // ids k101..k135, names n101..n135: every event of the same estimate
        }
        long each = EventHeap.estimate(NativeEventJson.parse(lines.get(0), 1, Source.line("f.jsonl", 1)).event());
        LoadReport report = new EventFileLoader(DS, e, 1000, 1, 10 * each, LoadFields.NONE, true).load(reader(lines), "f.jsonl", LOAD_START);

        assertThat(report.batches()).isEqualTo(4); // 35 events: 10, 10, 10, 5, not one batch of 35
        assertThat(report.result().newKeys()).isEqualTo(35);
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 35; i++) {
            int k = i + 100; // on line i
            expected.add(String.format("k%03d|n%d|2026-01-01 00:00:%02d+00|null|f|file:f.jsonl|null|%d", k, k, k % 60, i));
        }
        assertThat(rows(e)).containsExactlyElementsOf(expected);
    }

    @Test
    void anInputBreakingOffStopsTheLoadAfterTheBatchesReadBeforeIt() throws Exception {
        EntitySpec e = entity("load_overlap_broken");
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            lines.add(i == 3 ? "{not json" : upsert(i));
        }
        BreakingSource source = new BreakingSource(new JsonLinesSource(reader(lines), "f.jsonl", LOAD_START, e, new TimeTexts(null)), 25);
        assertThatThrownBy(() -> new EventFileLoader(DS, e, 10, 1).load(source, "f.jsonl"))
                .isInstanceOfSatisfying(LoadException.class, ex -> {
                    assertThat(ex.getMessage()).isEqualTo("cannot read f.jsonl after line 24: disk gone (test)");
                    assertThat(ex.soFar().batches()).isEqualTo(2);
                    assertThat(ex.soFar().lines()).isEqualTo(24);
                    assertThat(ex.soFar().result().newKeys()).isEqualTo(20);
                    assertThat(ex.soFar().parseRejections()).extracting(Rejection::source).containsExactly(Source.line("f.jsonl", 3));
                });
        source.close();
        // lines 1-21 but 3 are the two batches; 22-24 were read but their batch never completed
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 21; i++) {
            if (i != 3) {
                expected.add(row(i));
            }
        }
        assertThat(rows(e)).containsExactlyElementsOf(expected);
    }

    @Test
    void aBatchTheDatabaseRefusesStopsTheLoadAndTheReaderBeforeTheSourceCloses() throws Exception {
        EntitySpec e = entity("load_overlap_refused");
        List<String> lines = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            lines.add(upsert(i));
        }
        FlakyDataSource flaky = new FlakyDataSource(DS);
        flaky.refuseConnectionsAfter(3); // one for the entity's shape, then one per batch at parallelism 1: the third batch is refused
        BreakingSource source = new BreakingSource(new JsonLinesSource(reader(lines), "f.jsonl", LOAD_START, e, new TimeTexts(null)), Long.MAX_VALUE);
        assertThatThrownBy(() -> new EventFileLoader(flaky, e, 10, 1).load(source, "f.jsonl"))
                .isInstanceOfSatisfying(LoadException.class, ex -> {
                    assertThat(ex.getMessage()).isEqualTo("the database refused the batch ending at line 30: "
                            + "Connection to 127.0.0.1:5432 refused (test) (SQL state 08001)");
                    assertThat(ex.soFar().batches()).isEqualTo(2);
                    assertThat(ex.soFar().lines()).isEqualTo(30);
                    assertThat(ex.soFar().result().newKeys()).isEqualTo(20);
                });
        assertThat(source.position()).as("rows read when the load stopped").isEqualTo(30);
        source.close();
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            expected.add(row(i));
        }
        assertThat(rows(e)).containsExactlyElementsOf(expected);
    }

    @Test
    void withSeveralConnectionsABatchIsValidatedInSlicesAndEveryRefusalKeepsItsLine() throws Exception {
        EntitySpec e = entity("load_sliced_validation");
        int n = 3 * ParallelLoad.MIN_EVENTS_PER_SLICE; // one batch, validated in three slices on three threads
        List<Integer> refused = List.of(5, n / 2, n - 1); // one in each slice
        List<String> lines = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            String colour = refused.contains(i) ? ",\"colour\":\"red\"" : "";
            lines.add(String.format("{\"op\":\"upsert\",\"event_time\":\"2026-01-01T00:00:%02dZ\",\"data\":{\"id\":\"p%05d\",\"name\":\"n%d\"%s}}",
                    i % 60, i, i, colour));
            if (!refused.contains(i)) {
                expected.add(String.format("p%05d|n%d|2026-01-01 00:00:%02d+00|null|f|file:f.jsonl|null|%d", i, i, i % 60, i));
            }
        }
        LoadReport report = new EventFileLoader(DS, e, 10_000, 3).load(reader(lines), "f.jsonl", LOAD_START);

        assertThat(report.batches()).isEqualTo(1);
        assertThat(report.result().rejected()).containsExactly(
                new Rejection(Source.line("f.jsonl", 5), "column 'colour' is not declared for entity 'load_sliced_validation'", null),
                new Rejection(Source.line("f.jsonl", n / 2), "column 'colour' is not declared for entity 'load_sliced_validation'", null),
                new Rejection(Source.line("f.jsonl", n - 1), "column 'colour' is not declared for entity 'load_sliced_validation'", null));
        assertThat(report.result().newKeys()).isEqualTo(n - 3);
        assertThat(rows(e)).containsExactlyElementsOf(expected);
    }

    @Test
    void withSeveralConnectionsAPartThatFailsEndsTheLoadOnlyWhenTheOtherPartHasEnded() throws Exception {
        EntitySpec e = entity("load_part_fails");
        List<String> lines = new ArrayList<>();
        List<List<String>> idsByPart = List.of(new ArrayList<>(), new ArrayList<>());
        List<String> rowsOfTheSlowPart = new ArrayList<>();
        EventValidator validator = new EventValidator(e);
        for (int i = 1; i <= 40; i++) {
            lines.add(upsert(i));
            TypedEvent typed = validator.validate(NativeEventJson.parse(upsert(i), i, Source.line("f.jsonl", i)).event()).event();
            int part = ParallelLoad.part(typed, 1, 2);
            idsByPart.get(part).add(String.format("k%03d", i));
            if (part == 1) {
                rowsOfTheSlowPart.add(row(i));
            }
        }
        // part 1 of 2 (the first to be started) fails at its commit; part 2 takes 1 s more to commit
        DataSource ds = new CommitFailsOrWaits(DS, "SELECT count(*) > 0 FROM load_part_fails WHERE id = ANY(?)", idsByPart.get(0));
        assertThatThrownBy(() -> new EventFileLoader(ds, e, 1000, 2).load(reader(lines), "f.jsonl", LOAD_START))
                .isInstanceOfSatisfying(LoadException.class, ex -> {
                    assertThat(ex.getMessage()).isEqualTo("the database refused the batch ending at line 40: "
                            + "An I/O error occurred while sending to the backend (test) (SQL state 08006)");
                    assertThat(ex.soFar().batches()).isZero();
                });
        // read at once: had the load returned before part 2 ended, its rows would be missing
        assertThat(rows(e)).containsExactlyElementsOf(rowsOfTheSlowPart);
    }

    private static String upsert(int i) {
        return String.format("{\"op\":\"upsert\",\"event_time\":\"2026-01-01T00:00:%02dZ\",\"data\":{\"id\":\"k%03d\",\"name\":\"n%d\"}}",
                i % 60, i, i);
    }

    /** The version row line {@code i} makes, as {@link #rows} prints it. */
    private static String row(int i) {
        return String.format("k%03d|n%d|2026-01-01 00:00:%02d+00|null|f|file:f.jsonl|null|%d", i, i, i % 60, i);
    }

    private static BufferedReader reader(List<String> lines) {
        return new BufferedReader(new StringReader(String.join("\n", lines) + "\n"));
    }

    private static EntitySpec entity(String name) throws SQLException {
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + name + ", " + name + "_events CASCADE");
        }
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        EntitySpec e = EntitySpec.builder().name(name).table(name).key(List.of("id")).tracked(List.of("name")).columns(cols)
                .latenessHorizon(Optional.empty()).build();
        EntityTables.ensure(DS, e);
        return e;
    }

    private static List<String> rows(EntitySpec e) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET TIME ZONE 'UTC'");
            try (ResultSet rs = s.executeQuery("SELECT concat_ws('|', id, name, valid_from, coalesce(valid_to::text, 'null'), "
                     + "is_deleted, source_topic, coalesce(source_partition::text, 'null'), source_offset) FROM " + e.table()
                     + " ORDER BY id, valid_from")) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
        }
        return out;
    }

    /** A source that fails as a broken disk does when asked for row {@code failAt}. */
    private static final class BreakingSource implements RowSource {
        private final RowSource real;
        private final long failAt;
        private long returned;

        BreakingSource(RowSource real, long failAt) {
            this.real = real;
            this.failAt = failAt;
        }

        @Override
        public NativeEventJson.Parsed next() throws IOException {
            if (returned + 1 == failAt) {
                throw new IOException("disk gone (test)");
            }
            NativeEventJson.Parsed p = real.next();
            if (p != null) {
                returned++;
            }
            return p;
        }

        @Override
        public long position() {
            return returned;
        }

        @Override
        public String unit() {
            return "line";
        }

        @Override
        public void close() throws IOException {
            real.close();
        }
    }

    /**
     * Fails the commit of a transaction that wrote one of {@code ids} (the probe asks, in the
     * transaction itself) as a connection lost at commit does (08006, nothing committed); every
     * other commit waits a second first.
     */
    private static final class CommitFailsOrWaits extends ForwardingDataSource {

        private final String probe;
        private final String[] ids;

        CommitFailsOrWaits(DataSource real, String probe, List<String> ids) {
            super(real);
            this.probe = probe;
            this.ids = ids.toArray(new String[0]);
        }

        @Override
        protected Connection wrap(Connection c) {
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                    (proxy, method, args) -> {
                        if (method.getName().equals("commit")) {
                            boolean wroteOne;
                            try (PreparedStatement ps = c.prepareStatement(probe)) {
                                ps.setArray(1, c.createArrayOf("text", ids));
                                try (ResultSet rs = ps.executeQuery()) {
                                    rs.next();
                                    wroteOne = rs.getBoolean(1);
                                }
                            }
                            if (wroteOne) {
                                c.rollback();
                                throw new SQLException("An I/O error occurred while sending to the backend (test)", "08006");
                            }
                            Thread.sleep(1000);
                        }
                        try {
                            return method.invoke(c, args);
                        } catch (InvocationTargetException ex) {
                            throw ex.getCause();
                        }
                    });
        }
    }
}
