package io.dimstream.db.jobs;

import static io.dimstream.db.jobs.JobsFixtures.up;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.connect.ForwardingDataSource;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.event.Event;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.ShadowDiff;
import io.dimstream.db.read.ShadowDiff.KeyDiff;
import io.dimstream.db.read.ShadowDiff.Kind;
import io.dimstream.db.read.VersionRow;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.Scd2Writer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A previewed rebuild on real PostgreSQL: a READY shadow job's diff against the live table (computed
 * as the swap would, with the live events the shadow lacks merged, then rolled back), its discard
 * (the live table untouched, every row) and its swap (the live table becomes the shadow), audited;
 * jobs that are not READY are refused.
 */
class ShadowPreviewsTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);
    private final ReplayJobs jobs = new ReplayJobs(ds);
    private final ShadowPreviews previews = new ShadowPreviews(ds);
    private final HistoryQueries history = new HistoryQueries(ds);

    /** The live table's events: A twice, B, C, E; and C once more after the job's end offsets (live only). */
    private static final List<Event> LIVE = List.of(up("A", 1, "a1", "Oslo", 1, 1), up("A", 3, "a2", "Oslo", 1, 2),
            up("B", 1, "b1", "Rome", 1, 3), up("C", 2, "c1", "Bern", 1, 4), up("E", 1, "e1", "Kyiv", 1, 5));
    private static final Event LIVE_AFTER_END = up("C", 4, "c2", "Bern", 1, 100);
    /**
     * What the replay read: the live range but B (gone from the topic), plus events the live table
     * never got: A's later version, a new key D, a type-1 change of E.
     */
    private static final List<Event> REPLAYED = List.of(up("A", 1, "a1", "Oslo", 1, 1), up("A", 3, "a2", "Oslo", 1, 2),
            up("C", 2, "c1", "Bern", 1, 4), up("E", 1, "e1", "Kyiv", 1, 5), up("A", 5, "a3", "Oslo", 1, 6),
            up("D", 2, "d1", "Nice", 1, 7), up("E", 6, "e1", "Kyiv", 2, 8));

    /** A live table, a READY no-swap job of it with its shadow filled with {@link #REPLAYED}. */
    private record Setup(EntitySpec live, EntitySpec shadow, long job) {
    }

    private Setup readyJob(String prefix) throws SQLException {
        EntitySpec live = JobsFixtures.ensuredCustomer(ds, prefix, Optional.empty());
        writer.apply(live, LIVE);
        writer.apply(live, List.of(LIVE_AFTER_END));
        // B's events are no longer remembered (pruned, as memory pruning leaves a key: its memory rows
        // gone, its versions' event_seq cleared), so the swap cannot bring B back
        JobsFixtures.query(ds, "DELETE FROM " + live.memoryTable() + " WHERE customer_id = 'B' RETURNING customer_id");
        JobsFixtures.query(ds, "UPDATE " + live.table() + " SET event_seq = NULL WHERE customer_id = 'B' RETURNING customer_id");
        long id = jobs.submit(live.name(), "crm", ReplaySource.earliest(), ReplayTarget.SHADOW, true, "alice");
        EntitySpec shadow = ShadowTables.shadowSpec(live, id);
        ShadowTables.create(ds, shadow);
        writer.apply(shadow, REPLAYED.stream().map(e -> new Event(e.op(), e.eventTime(), e.data(), e.seq() - (1L << 62), e.source(), null))
                .toList());
        Transactions.run(ds, c -> ReplayJobs.ready(c, id, "filled"));
        return new Setup(live, shadow, id);
    }

    private VersionRow version(EntitySpec e, String key, int day) throws SQLException {
        return history.history(e, List.of(key)).stream()
                .filter(v -> v.validFrom().equals(JobsFixtures.T0.plus(Duration.ofDays(day)))).findFirst().orElseThrow();
    }

    /**
     * The keys a preview of {@link #readyJob} lists: A changed (a later version), B removed (pruned from
     * the memory), D added, E changed (a type-1 value); C's live event after the end offsets is merged
     * as the swap would merge it, so C does not differ.
     */
    private List<KeyDiff> expectedKeys(Setup s) throws SQLException {
        return List.of(
                new KeyDiff(Map.of("customer_id", "A"), Kind.CHANGED, List.of(version(s.shadow(), "A", 3), version(s.shadow(), "A", 5)),
                        List.of(version(s.live(), "A", 3))),
                new KeyDiff(Map.of("customer_id", "B"), Kind.REMOVED, List.of(), List.of(version(s.live(), "B", 1))),
                new KeyDiff(Map.of("customer_id", "D"), Kind.ADDED, List.of(version(s.shadow(), "D", 2)), List.of()),
                new KeyDiff(Map.of("customer_id", "E"), Kind.CHANGED, history.history(s.shadow(), List.of("E")),
                        history.history(s.live(), List.of("E"))));
    }

    @Test
    void previewListsExactlyTheDifferingKeysAndVersionsAsTheSwapWouldAndChangesNothing() throws SQLException {
        Setup s = readyJob("preview_diff");
        List<String> liveBefore = JobsFixtures.wholeRows(ds, s.live().table());
        List<String> shadowBefore = JobsFixtures.wholeRows(ds, s.shadow().table());

        ShadowPreviews.Preview p = previews.preview(s.job(), s.live(), 100);

        List<KeyDiff> expected = expectedKeys(s);
        assertThat(p.diff()).isEqualTo(new ShadowDiff(1, 1, 2, 4, 3, expected, false));
        // what the versions hold: A's open a2 closed at day 5 by a3; E's last_login (type-1) 1 -> 2; B and D whole
        assertThat(expected.get(0).versionsAdded().stream().map(v -> List.of(v.attributes().get("email"), String.valueOf(v.validTo()))).toList())
                .isEqualTo(List.of(List.of("a2", JobsFixtures.T0.plus(Duration.ofDays(5)).toString()), List.of("a3", "null")));
        assertThat(expected.get(0).versionsRemoved().get(0).validTo()).isNull();
        assertThat(expected.get(3).versionsAdded().stream().map(v -> v.attributes().get("last_login")).toList()).isEqualTo(List.of(2L));
        assertThat(expected.get(3).versionsRemoved().stream().map(v -> v.attributes().get("last_login")).toList()).isEqualTo(List.of(1L));
        assertThat(List.of(p.mergedEvents(), p.liveTable(), p.shadowTable(), p.job().state()))
                .isEqualTo(List.of(1, s.live().table(), s.shadow().table(), JobState.READY));
        // the merge was rolled back: neither table changed, every column of every row
        assertThat(JobsFixtures.wholeRows(ds, s.live().table())).isEqualTo(liveBefore);
        assertThat(JobsFixtures.wholeRows(ds, s.shadow().table())).isEqualTo(shadowBefore);

        // the first two keys only, saying more differ
        assertThat(previews.preview(s.job(), s.live(), 2).diff())
                .isEqualTo(new ShadowDiff(1, 1, 2, 4, 3, expected.subList(0, 2), true));
        assertThat(previews.preview(s.job(), s.live(), 0).diff()).isEqualTo(new ShadowDiff(1, 1, 2, 4, 3, List.of(), true));
    }

    @Test
    void aLiveBatchCommittingBetweenThePreviewsMergeAndItsDiffIsSeenByNeither() throws SQLException {
        Setup s = readyJob("preview_concurrent");
        Event committedMeanwhile = up("C", 6, "c3", "Bern", 1, 101);
        List<KeyDiff> expected = expectedKeys(s);
        // a sink batch of C commits right after the merge, before the diff reads the live table: under READ
        // COMMITTED the diff saw C's new version, which the merge had not taken, and listed C as changed
        DataSource racing = new ForwardingDataSource(ds) {
            private boolean done;

            @Override
            protected Connection wrap(Connection c) {
                return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                        (proxy, method, args) -> {
                            if (!done && method.getName().equals("prepareStatement") && ((String) args[0]).startsWith("WITH d AS MATERIALIZED")) {
                                done = true;
                                writer.apply(s.live(), List.of(committedMeanwhile));
                            }
                            try {
                                return method.invoke(c, args);
                            } catch (InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
            }
        };

        ShadowPreviews.Preview p = new ShadowPreviews(racing).preview(s.job(), s.live(), 100);

        assertThat(p.diff()).isEqualTo(new ShadowDiff(1, 1, 2, 4, 3, expected, false));
        assertThat(p.mergedEvents()).isEqualTo(1);
        // the next preview sees the batch, merged as the swap would merge it: still no difference for C
        assertThat(previews.preview(s.job(), s.live(), 100).diff()).isEqualTo(new ShadowDiff(1, 1, 2, 4, 3, expected, false));
    }

    @Test
    void discardDropsTheShadowLeavesTheLiveTableUntouchedAndIsAudited() throws SQLException {
        Setup s = readyJob("preview_discard");
        List<String> liveBefore = JobsFixtures.wholeRows(ds, s.live().table());
        List<String> memoryBefore = JobsFixtures.query(ds, "SELECT to_jsonb(m)::text FROM " + s.live().memoryTable()
                + " m ORDER BY customer_id, event_time").stream().map(r -> (String) r.get(0)).toList();

        ReplayJob j = previews.discard(s.job(), s.live(), "bob");

        assertThat(List.of(j.state(), j.detail())).isEqualTo(List.of(JobState.CANCELLED, "discarded by bob before its swap; the shadow "
                + "table " + s.shadow().table() + " was dropped, the live table is untouched"));
        assertThat(JobsFixtures.wholeRows(ds, s.live().table())).isEqualTo(liveBefore);
        assertThat(JobsFixtures.query(ds, "SELECT to_jsonb(m)::text FROM " + s.live().memoryTable() + " m ORDER BY customer_id, event_time")
                .stream().map(r -> (String) r.get(0)).toList()).isEqualTo(memoryBefore);
        assertThat(JobsFixtures.query(ds, "SELECT relname FROM pg_class WHERE relname LIKE ? ORDER BY relname", s.shadow().table() + "%"))
                .isEmpty();
        assertThat(JobsFixtures.query(ds, "SELECT actor, action, target, detail::text FROM dimstream.admin_audit WHERE target = ? "
                + "AND action <> 'replay.submit' ORDER BY id", "replay_job:" + s.job()))
                .isEqualTo(List.of(List.of("bob", "replay.discard", "replay_job:" + s.job(), "{\"table\": \"" + s.live().table()
                        + "\", \"entity\": \"" + s.live().name() + "\", \"shadow\": \"" + s.shadow().table() + "\"}")));
        assertThatThrownBy(() -> previews.swap(s.job(), s.live(), "bob")).isInstanceOf(ShadowPreviews.NotReady.class)
                .hasMessage("replay job " + s.job() + " is CANCELLED, not READY: only a shadow replay submitted with --no-swap that has "
                        + "reached its end offsets waits for a swap or discard");
    }

    @Test
    void swapMakesTheLiveTableTheShadowWithTheLiveEventsMergedAndIsAudited() throws SQLException {
        Setup s = readyJob("preview_swap");
        ShadowPreviews.Preview p = previews.preview(s.job(), s.live(), 100);
        List<String> retiredExpected = JobsFixtures.wholeRows(ds, s.live().table());

        ReplayJob j = previews.swap(s.job(), s.live(), "carol");

        // the shadow's events plus the live memory's event it lacked: exactly what the preview merged
        List<Event> all = new ArrayList<>(REPLAYED);
        all.add(LIVE_AFTER_END);
        assertThat(EntityTableReader.rows(ds, s.live())).isEqualTo(new ReferenceModel(s.live()).rows(all));
        assertThat(JobsFixtures.wholeRows(ds, ShadowTables.retiredTable(s.live(), s.job()))).isEqualTo(retiredExpected);
        // the preview said what would change: the retired table against the new live one differs in the same keys
        try (java.sql.Connection c = ds.getConnection()) {
            ShadowDiff after = ShadowDiff.compute(c, s.live().withTable(ShadowTables.retiredTable(s.live(), s.job())), s.live(), 100);
            assertThat(after).isEqualTo(p.diff());
        }
        assertThat(List.of(j.state(), j.detail())).isEqualTo(List.of(JobState.SUCCEEDED, "swapped in by carol after its preview; the "
                + "replaced table is kept as " + s.live().table() + "_replaced_" + s.job() + " (memory " + s.live().table() + "_replaced_"
                + s.job() + "_events); 1 events of the live memory merged at the swap"));
        assertThat(JobsFixtures.query(ds, "SELECT actor, action, target, detail::text FROM dimstream.admin_audit WHERE target = ? "
                + "AND action <> 'replay.submit' ORDER BY id", "replay_job:" + s.job()))
                .isEqualTo(List.of(List.of("carol", "replay.swap", "replay_job:" + s.job(), "{\"table\": \"" + s.live().table()
                        + "\", \"entity\": \"" + s.live().name() + "\", \"shadow\": \"" + s.shadow().table() + "\", \"merged_events\": 1, "
                        + "\"replaced_kept_as\": \"" + s.live().table() + "_replaced_" + s.job() + "\"}")));
        assertThatThrownBy(() -> previews.discard(s.job(), s.live(), "carol")).isInstanceOf(ShadowPreviews.NotReady.class)
                .hasMessageStartingWith("replay job " + s.job() + " is SUCCEEDED, not READY");
    }

    @Test
    void aColumnAddedWhileTheJobWaitedIsInItsPreviewAndItsSwapAndTheLiveColumnOrderStays() throws SQLException {
        Setup s = readyJob("preview_evolved");
        // while the job waits, the source sends a new field: the live sink adds it (last) and writes with it
        EntitySpec now = Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, s.live(),
                List.of(new EvolvedColumns.NewColumn("channel", ColumnType.TEXT, true, "crm-0@200"))));
        Event withChannel = withChannel(up("E", 8, "e1", "Kyiv", 2, 200), "sms");
        writer.apply(now, List.of(withChannel));
        List<String> order = columns(s.live().table());

        ShadowPreviews.Preview p = previews.preview(s.job(), s.live(), 100);

        // merged as the swap would: C's later event and E's new version with the channel, which both tables
        // then hold alike; E still differs by its replayed type-1 change of day 6 (its first version's last_login)
        assertThat(p.mergedEvents()).isEqualTo(2);
        assertThat(p.diff().keys().stream().map(k -> k.key().get("customer_id") + " " + k.kind()).toList())
                .isEqualTo(List.of("A CHANGED", "B REMOVED", "D ADDED", "E CHANGED"));
        assertThat(p.diff().keys().get(3).versionsAdded().stream().map(v -> v.attributes().get("channel") + " "
                + v.attributes().get("last_login")).toList()).isEqualTo(List.of("null 2"));

        previews.swap(s.job(), s.live(), "carol");

        List<Event> all = new ArrayList<>(REPLAYED);
        all.add(LIVE_AFTER_END);
        all.add(withChannel);
        assertThat(EntityTableReader.rows(ds, now)).isEqualTo(new ReferenceModel(now).rows(all));
        assertThat(columns(s.live().table())).isEqualTo(order);
    }

    @Test
    void aSwapThatCannotBeMadeIsRefusedSayingWhatToDoAndChangesNothing() throws SQLException {
        Setup s = readyJob("preview_refused_swap");
        // the shadow's last_login was widened (a replay that met a value beyond bigint), the live table's not yet,
        // and a view of a user's reads the live column, which PostgreSQL then refuses to retype
        Transactions.inTransaction(ds, c -> EvolvedColumns.widen(c, s.shadow(), List.of(new EvolvedColumns.Widening("last_login",
                TypeWidening.ColumnDef.of(ColumnType.NUMERIC), "crm-0@300"))));
        exec("CREATE VIEW " + s.live().table() + "_logins AS SELECT customer_id, last_login FROM " + s.live().table());
        List<String> liveBefore = JobsFixtures.wholeRows(ds, s.live().table());

        assertThatThrownBy(() -> previews.swap(s.job(), s.live(), "carol")).isInstanceOf(ShadowTables.SwapRefused.class)
                .hasMessage("swap of " + s.shadow().table() + " into " + s.live().table() + ": entity " + s.live().name() + ": columns "
                        + "[last_login] of " + s.live().table() + " must be widened to the entity's types (the catalog's, "
                        + "dimstream.entity_columns), which PostgreSQL refuses while views use them: " + s.live().table() + "_logins; drop "
                        + "those views, retry, and create them again");

        assertThat(List.of(jobs.find(s.job()).orElseThrow().state(), JobsFixtures.wholeRows(ds, s.live().table())))
                .isEqualTo(List.of(JobState.READY, liveBefore));
        exec("DROP VIEW " + s.live().table() + "_logins");
        assertThat(previews.swap(s.job(), s.live(), "carol").state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(JobsFixtures.query(ds, "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = ?::regclass "
                + "AND attname = 'last_login'", s.live().table())).isEqualTo(List.of(List.of("numeric")));
    }

    private static Event withChannel(Event e, String channel) {
        Map<String, Object> d = new LinkedHashMap<>(e.data());
        d.put("channel", channel);
        return Event.upsert(e.eventTime(), d, e.seq(), e.source());
    }

    private void exec(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    private List<String> columns(String table) throws SQLException {
        return JobsFixtures.query(ds, "SELECT attname::text FROM pg_attribute WHERE attrelid = ?::regclass AND attnum > 0 "
                + "AND NOT attisdropped ORDER BY attnum", table).stream().map(r -> (String) r.get(0)).toList();
    }

    @Test
    void jobsThatAreNotReadyShadowJobsOfTheEntityAreRefused() throws SQLException {
        EntitySpec live = JobsFixtures.ensuredCustomer(ds, "preview_refused", Optional.empty());
        long running = jobs.submit(live.name(), "crm", ReplaySource.earliest(), ReplayTarget.SHADOW, true, "alice");
        long liveJob = jobs.submit(live.name(), "crm", ReplaySource.earliest(), ReplayTarget.LIVE, "alice");
        EntitySpec other = JobsFixtures.ensuredCustomer(ds, "preview_other", Optional.empty());

        assertThatThrownBy(() -> previews.swap(running, live, "x")).isInstanceOf(ShadowPreviews.NotReady.class)
                .hasMessage("replay job " + running + " is QUEUED, not READY: only a shadow replay submitted with --no-swap that has "
                        + "reached its end offsets waits for a swap or discard");
        assertThatThrownBy(() -> previews.preview(liveJob, live, 10)).isInstanceOf(ShadowPreviews.NotReady.class)
                .hasMessageStartingWith("replay job " + liveJob + " is a live replay, QUEUED, not READY");
        assertThatThrownBy(() -> previews.discard(running, other, "x")).isInstanceOf(ShadowPreviews.NotReady.class)
                .hasMessage("replay job " + running + " rebuilds entity " + live.name() + ", not " + other.name());
        assertThatThrownBy(() -> previews.preview(987_654_321L, live, 10)).isInstanceOf(ShadowPreviews.NotReady.class)
                .hasMessage("no replay job 987654321");
        Transactions.run(ds, c -> ReplayJobs.ready(c, running, "filled"));
        assertThatThrownBy(() -> previews.preview(running, live, 10)).isInstanceOf(ShadowPreviews.NotReady.class)
                .hasMessage("the shadow table " + live.table() + "_shadow_" + running + " of replay job " + running + " is missing "
                        + "(dropped by hand?); discard the job and submit the replay again");
        assertThatThrownBy(() -> jobs.submit(live.name(), "crm", ReplaySource.earliest(), ReplayTarget.LIVE, true, "alice"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no-swap: only a shadow replay can stop before its swap (target is live)");
        assertThat(JobsFixtures.query(ds, "SELECT state, no_swap FROM dimstream.replay_jobs WHERE id IN (?, ?) ORDER BY id", running, liveJob))
                .isEqualTo(List.of(List.of("READY", true), List.of("QUEUED", false)));
    }

    private static Event regional(String region, long id, String name, String note, long seq) {
        Map<String, Object> d = new java.util.LinkedHashMap<>();
        d.put("region", region);
        d.put("id", id);
        d.put("name", name);
        d.put("note", note);
        return Event.upsert(JobsFixtures.T0.plus(Duration.ofDays(1)), d, seq, io.dimstream.db.event.Source.kafka("geo", 0, Math.abs(seq)));
    }

    @Test
    void aCompositeKeyDiffersPerWholeKeyAndNullType1ValuesCompareEqual() throws SQLException {
        Map<String, io.dimstream.db.entity.ColumnType> cols = new java.util.LinkedHashMap<>();
        cols.put("region", io.dimstream.db.entity.ColumnType.TEXT);
        cols.put("id", io.dimstream.db.entity.ColumnType.INTEGER);
        cols.put("name", io.dimstream.db.entity.ColumnType.TEXT);
        cols.put("note", io.dimstream.db.entity.ColumnType.TEXT);
        EntitySpec live = EntitySpec.builder().name("preview_geo").table("preview_geo_" + System.nanoTime() % 1_000_000)
                .key(List.of("region", "id")).tracked(List.of("name")).type1(List.of("note")).columns(cols)
                .latenessHorizon(Optional.empty()).system(io.dimstream.db.entity.SystemColumns.DEFAULTS).build();
        io.dimstream.db.schema.EntityTables.ensure(ds, live);
        EntitySpec shadow = ShadowTables.shadowSpec(live, 5);
        ShadowTables.create(ds, shadow);
        writer.apply(live, List.of(regional("eu", 1, "a", null, 1), regional("eu", 2, "b", null, 2), regional("us", 1, "c", "x", 3)));
        // eu/1 the same (its NULL note too), eu/2 renamed, us/1 absent, us/2 new; (us, 1) and (eu, 2) share no key column pair
        writer.apply(shadow, List.of(regional("eu", 1, "a", null, 1), regional("eu", 2, "b2", null, 2), regional("us", 2, "c", "x", 3)));

        ShadowDiff d;
        try (java.sql.Connection c = ds.getConnection()) {
            d = ShadowDiff.compute(c, live, shadow, 10);
        }

        assertThat(d).isEqualTo(new ShadowDiff(1, 1, 1, 2, 2, List.of(
                new KeyDiff(Map.of("region", "eu", "id", 2L), Kind.CHANGED, history.history(shadow, List.of("eu", 2)),
                        history.history(live, List.of("eu", 2))),
                new KeyDiff(Map.of("region", "us", "id", 1L), Kind.REMOVED, List.of(), history.history(live, List.of("us", 1))),
                new KeyDiff(Map.of("region", "us", "id", 2L), Kind.ADDED, history.history(shadow, List.of("us", 2)), List.of())), false));
        assertThat(d.keys().stream().map(k -> k.versionsAdded().size() + "/" + k.versionsRemoved().size()).toList())
                .isEqualTo(List.of("1/1", "0/1", "1/0"));
    }
}
