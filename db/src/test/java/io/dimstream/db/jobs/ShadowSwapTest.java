package io.dimstream.db.jobs;

import static io.dimstream.db.jobs.JobsFixtures.del;
import static io.dimstream.db.jobs.JobsFixtures.up;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.Scd2Writer;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The swap after the entity's columns changed while running, and what users built on the table:
 * the live table keeps its identity (OID, column order, grants, comments, the views on it and on
 * its {@code _current} view) and holds the rebuilt contents, every row equal to what it held before
 * when the rebuild reproduces it.
 */
class ShadowSwapTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    /** Before the source sent {@code channel}. */
    private static final List<Event> BEFORE = List.of(up("A", 1, "a1", "Oslo", 1, 1), up("B", 1, "b1", "Rome", 1, 2),
            up("A", 3, "a2", "Oslo", 2, 3), del("B", 4, 4), up("C", 2, "c1", "Bern", 1, 5));
    /** After it: a new version of A, a key with no channel (NULL: no version of its own), a new key. */
    private static final List<Event> AFTER = List.of(with(up("A", 5, "a2", "Oslo", 3, 6), "channel", "sms"),
            with(up("C", 6, "c1", "Bern", 4, 7), "channel", null), with(up("D", 6, "d1", "Kyiv", 1, 8), "channel", "app"));

    @Test
    void aSwapAfterAColumnWasAddedWhileRunningKeepsTheLiveColumnOrderAndEveryRow() throws SQLException {
        EntitySpec config = JobsFixtures.ensuredCustomer(ds, "swap_order", Optional.empty());
        writer.apply(config, BEFORE);
        // the source starts sending a field: a tracked column, added last to the live table
        EntitySpec live = Transactions.inTransaction(ds, c -> EvolvedColumns.add(c, config,
                List.of(new EvolvedColumns.NewColumn("channel", ColumnType.TEXT, true, "crm-0@6"))));
        writer.apply(live, AFTER);
        // the rebuild: a shadow made from the entity as it is now (channel among the tracked columns,
        // before last_login), filled from the topic
        EntitySpec shadow = ShadowTables.shadowSpec(live, 81);
        ShadowTables.create(ds, shadow);
        writer.apply(shadow, replayed(all(BEFORE, AFTER)));
        List<String> order = columns(live.table());
        List<String> viewOrder = columns(live.currentView());
        List<String> rowsBefore = rowsButLoadedAt(live.table());
        assertThat(order).as("the live table has the added column last").endsWith("event_seq", "known_from", "end_known_from", "channel");
        assertThat(columns(shadow.table())).as("the shadow has it before last_login")
                .startsWith("customer_id", "email", "city", "channel", "last_login");

        swap(live, shadow, 81);

        assertThat(rowsButLoadedAt(live.table())).isEqualTo(rowsBefore);
        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(all(BEFORE, AFTER)));
        assertThat(columns(live.table())).isEqualTo(order);
        assertThat(columns(live.currentView())).isEqualTo(viewOrder);
        assertThat(JobsFixtures.query(ds, "SELECT customer_id, channel, last_login FROM " + live.currentView() + " ORDER BY customer_id"))
                .isEqualTo(List.of(row("A", "sms", 3L), row("C", null, 4L), row("D", "app", 1L)));
        assertThat(JobsFixtures.query(ds, "SELECT customer_id, email, channel FROM " + live.table()
                + "_as_of('2025-08-07T12:00:00Z') ORDER BY customer_id"))
                .isEqualTo(List.of(row("A", "a2", "sms"), row("C", "c1", null), row("D", "d1", "app")));
        // the writer goes on into it
        Event later = with(up("D", 8, "d2", "Kyiv", 1, 9), "channel", "app");
        writer.apply(live, List.of(later));
        List<Event> everything = new ArrayList<>(all(BEFORE, AFTER));
        everything.add(later);
        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(everything));
        assertThat(EntityTables.ensure(ds, live)).isEmpty();
    }

    @Test
    void columnsAddedAndWidenedWhileTheShadowWasFilledReachTheSwappedInTable() throws SQLException {
        EntitySpec live = JobsFixtures.ensuredCustomer(ds, "swap_evolving", Optional.empty());
        writer.apply(live, BEFORE);
        // the job starts: its shadow is made from the entity as it is then
        EntitySpec shadow = ShadowTables.shadowSpec(live, 82);
        ShadowTables.create(ds, shadow);
        writer.apply(shadow, replayed(BEFORE));
        // meanwhile the live sink adds a type-1 column and widens last_login (a value beyond bigint)
        EntitySpec now = Transactions.inTransaction(ds, c -> {
            EntitySpec added = EvolvedColumns.add(c, live, List.of(new EvolvedColumns.NewColumn("tier", ColumnType.TEXT, false, "crm-0@9")));
            return EvolvedColumns.widen(c, added, List.of(new EvolvedColumns.Widening("last_login",
                    TypeWidening.ColumnDef.of(ColumnType.NUMERIC), "crm-0@10")));
        });
        List<Event> liveOnly = List.of(with(up("A", 7, "a3", "Oslo", 5, 9), "tier", "gold"),
                with(with(up("E", 7, "e1", "Nice", 0, 10), "tier", null), "last_login", new BigDecimal("100000000000000000000")));
        writer.apply(now, liveOnly);
        List<String> order = columns(live.table());
        List<List<Object>> catalog = catalog(live.name());

        // the job swaps with the entity as it was when the job started
        swap(live, shadow, 82);

        assertThat(EntityTableReader.rows(ds, now)).isEqualTo(new ReferenceModel(now).rows(all(BEFORE, liveOnly)));
        assertThat(columns(live.table())).isEqualTo(order);
        assertThat(JobsFixtures.query(ds, "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = ?::regclass "
                + "AND attname = 'last_login'", live.table())).isEqualTo(List.of(List.of("numeric")));
        assertThat(catalog(live.name())).isEqualTo(catalog);
        assertThat(JobsFixtures.query(ds, "SELECT customer_id, tier, last_login::text FROM " + live.currentView() + " ORDER BY customer_id"))
                .isEqualTo(List.of(row("A", "gold", "5"), row("C", null, "1"), row("E", null, "100000000000000000000")));
        assertThat(EntityTables.ensure(ds, now)).isEmpty();
    }

    @Test
    void usersViewsGrantsAndCommentsOnTheTableAndItsCurrentViewSeeTheNewDataAfterTheSwap() throws SQLException {
        EntitySpec live = JobsFixtures.ensuredCustomer(ds, "swap_users", Optional.empty());
        writer.apply(live, BEFORE);
        String schema = "analytics_" + live.table();
        String t = live.table();
        exec("CREATE SCHEMA " + schema,
                // what a dbt view model compiles to, one on the table and one on its _current view
                "CREATE VIEW " + schema + ".v_hist AS SELECT * FROM " + t,
                "CREATE VIEW " + schema + ".v_now AS SELECT customer_id, email FROM " + live.currentView(),
                // a BI tool's grants (this test may not create roles: PUBLIC and a predefined role)
                "GRANT SELECT ON " + t + " TO PUBLIC", "GRANT SELECT, REFERENCES ON " + t + " TO pg_monitor",
                "GRANT SELECT ON " + live.currentView() + " TO pg_monitor",
                "COMMENT ON TABLE " + t + " IS 'customers, history (owned by the data team)'",
                "COMMENT ON COLUMN " + t + ".email IS 'as the CRM has it'",
                "COMMENT ON VIEW " + live.currentView() + " IS 'customers now'");
        List<List<Object>> identity = identity(live);
        List<String> retiredExpected = JobsFixtures.wholeRows(ds, t);
        // the rebuild finds what the live table never had: a later version of A, a new key D
        EntitySpec shadow = ShadowTables.shadowSpec(live, 83);
        ShadowTables.create(ds, shadow);
        List<Event> replayed = all(BEFORE, List.of(up("A", 5, "a3", "Oslo", 2, 6), up("D", 2, "d1", "Kyiv", 1, 7)));
        writer.apply(shadow, replayed(replayed));

        swap(live, shadow, 83);

        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(replayed));
        assertThat(strings("SELECT to_jsonb(v)::text FROM " + schema + ".v_hist v ORDER BY customer_id, valid_from"))
                .isEqualTo(JobsFixtures.wholeRows(ds, t));
        assertThat(JobsFixtures.query(ds, "SELECT customer_id, email FROM " + schema + ".v_now ORDER BY customer_id"))
                .isEqualTo(List.of(row("A", "a3"), row("C", "c1"), row("D", "d1")));
        assertThat(JobsFixtures.query(ds, "SELECT DISTINCT d.refobjid::regclass::text FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid "
                + "WHERE r.ev_class = ?::regclass AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> r.ev_class", schema + ".v_hist"))
                .isEqualTo(List.of(row(t)));
        // the same objects (OIDs), with their grants and comments
        assertThat(identity(live)).isEqualTo(identity);
        // the replaced contents are kept, every row
        assertThat(JobsFixtures.wholeRows(ds, ShadowTables.retiredTable(live, 83))).isEqualTo(retiredExpected);
        assertThat(JobsFixtures.query(ds, "SELECT relname FROM pg_class WHERE relname LIKE ? AND relkind IN ('r', 'p', 'v') ORDER BY relname",
                t + "%")).isEqualTo(List.of(row(t), row(t + "_current"), row(t + "_events"), row(t + "_replaced_83"),
                row(t + "_replaced_83_events"), row(t + "_superseded")));
    }

    @Test
    void aPartitionedTableIsSwappedInPlaceWithItsPartitions() throws SQLException {
        EntitySpec live = JobsFixtures.customer("swap_parts", Optional.empty()).toBuilder().tablePartitions(2).build();
        EntityTables.ensure(ds, live);
        writer.apply(live, BEFORE);
        exec("CREATE VIEW " + live.table() + "_mine AS SELECT customer_id, email, valid_from FROM " + live.table());
        List<List<Object>> partitions = JobsFixtures.query(ds, "SELECT c.oid::bigint, c.relname FROM pg_inherits i JOIN pg_class c "
                + "ON c.oid = i.inhrelid WHERE i.inhparent = ?::regclass ORDER BY c.relname", live.table());
        List<List<Object>> identity = identity(live);
        EntitySpec shadow = ShadowTables.shadowSpec(live, 84);
        ShadowTables.create(ds, shadow);
        List<Event> replayed = all(BEFORE, List.of(up("D", 2, "d1", "Kyiv", 1, 7)));
        writer.apply(shadow, replayed(replayed));

        swap(live, shadow, 84);

        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(replayed));
        assertThat(JobsFixtures.query(ds, "SELECT c.oid::bigint, c.relname FROM pg_inherits i JOIN pg_class c "
                + "ON c.oid = i.inhrelid WHERE i.inhparent = ?::regclass ORDER BY c.relname", live.table())).isEqualTo(partitions);
        assertThat(identity(live)).isEqualTo(identity);
        assertThat(JobsFixtures.query(ds, "SELECT customer_id, email FROM " + live.table() + "_mine WHERE customer_id = 'D'"))
                .isEqualTo(List.of(row("D", "d1")));
        assertThat(EntityTables.ensure(ds, live)).isEmpty();
    }

    @Test
    void aRebuildThatChangesThePartitioningCarriesUsersViewsGrantsAndCommentsToTheNewTable() throws SQLException {
        EntitySpec plain = JobsFixtures.ensuredCustomer(ds, "swap_layout", Optional.empty());
        writer.apply(plain, BEFORE);
        String t = plain.table();
        String fn = plain.asOfFunction() + "(timestamptz)";
        exec("CREATE VIEW " + t + "_mine WITH (security_barrier) AS SELECT customer_id, email FROM " + t + " WHERE NOT is_deleted",
                "CREATE VIEW " + t + "_mine_now AS SELECT customer_id FROM " + t + "_mine",
                "GRANT SELECT ON " + t + " TO PUBLIC", "GRANT SELECT ON " + t + " TO pg_monitor WITH GRANT OPTION",
                "GRANT SELECT ON " + t + "_mine TO pg_monitor", "REVOKE EXECUTE ON FUNCTION " + fn + " FROM PUBLIC",
                "GRANT EXECUTE ON FUNCTION " + fn + " TO pg_monitor",
                "COMMENT ON TABLE " + t + " IS 'customers, history'", "COMMENT ON COLUMN " + t + ".city IS 'where they live'");
        List<List<Object>> grants = grants(t, fn);
        List<List<Object>> views = JobsFixtures.query(ds, "SELECT oid::bigint, relname::text, coalesce(relacl::text, ''), "
                + "coalesce(reloptions::text, '') FROM pg_class WHERE relname LIKE ? AND relkind = 'v' ORDER BY relname", t + "_mine%");
        // the config now says table-partitions: 2: the rebuild makes a new, partitioned table
        EntitySpec live = plain.toBuilder().tablePartitions(2).build();
        EntitySpec shadow = ShadowTables.shadowSpec(live, 85);
        ShadowTables.create(ds, shadow);
        List<Event> replayed = all(BEFORE, List.of(up("D", 2, "d1", "Kyiv", 1, 7)));
        writer.apply(shadow, replayed(replayed));

        swap(live, shadow, 85);

        assertThat(EntityTableReader.rows(ds, live)).isEqualTo(new ReferenceModel(live).rows(replayed));
        assertThat(JobsFixtures.query(ds, "SELECT count(*)::int FROM pg_inherits WHERE inhparent = ?::regclass", t)).isEqualTo(List.of(row(2)));
        // A a1, A a2, B b1 (B's delete row is left out), C c1, D d1: the new table's rows
        assertThat(JobsFixtures.query(ds, "SELECT customer_id, email FROM " + t + "_mine ORDER BY customer_id, email"))
                .isEqualTo(List.of(row("A", "a1"), row("A", "a2"), row("B", "b1"), row("C", "c1"), row("D", "d1")));
        assertThat(JobsFixtures.query(ds, "SELECT customer_id FROM " + t + "_mine_now WHERE customer_id = 'D'")).isEqualTo(List.of(row("D")));
        // the views keep their OIDs, grants and options, and read the new table
        assertThat(JobsFixtures.query(ds, "SELECT oid::bigint, relname::text, coalesce(relacl::text, ''), coalesce(reloptions::text, '') "
                + "FROM pg_class WHERE relname LIKE ? AND relkind = 'v' ORDER BY relname", t + "_mine%")).isEqualTo(views);
        assertThat(JobsFixtures.query(ds, "SELECT DISTINCT d.refobjid::regclass::text FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid "
                + "WHERE r.ev_class = ?::regclass AND d.refclassid = 'pg_class'::regclass AND d.refobjid <> r.ev_class", t + "_mine"))
                .isEqualTo(List.of(row(t)));
        assertThat(grants(t, fn)).isEqualTo(grants);
        assertThat(JobsFixtures.query(ds, "SELECT obj_description(?::regclass, 'pg_class'), col_description(?::regclass, "
                + "(SELECT attnum FROM pg_attribute WHERE attrelid = ?::regclass AND attname = 'city'))", t, t, t))
                .isEqualTo(List.of(row("customers, history", "where they live")));
    }

    // ---- helpers --------------------------------------------------------------------------

    private void swap(EntitySpec live, EntitySpec shadow, long job) throws SQLException {
        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            ShadowTables.swap(c, writer, live, shadow, job);
            c.commit();
        }
    }

    /** Replayed events lose same-time ties against the live memory (negative seq, as the worker stamps them). */
    private static List<Event> replayed(List<Event> events) {
        return events.stream().map(e -> new Event(e.op(), e.eventTime(), e.data(), e.seq() - (1L << 62), e.source(), null)).toList();
    }

    private static List<Event> all(List<Event> a, List<Event> b) {
        List<Event> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private static Event with(Event e, String column, Object value) {
        Map<String, Object> d = new LinkedHashMap<>(e.data());
        d.put(column, value);
        return Event.upsert(e.eventTime(), d, e.seq(), e.source() == null ? Source.kafka("crm", 0, e.seq()) : e.source());
    }

    private static List<Object> row(Object... values) {
        return Arrays.asList(values);
    }

    /**
     * Every column of every row but when each row was written (loaded_at, and event_seq: a rebuilt
     * row's is the replay's arrival order), as JSON text, in key and valid_from order.
     */
    private List<String> rowsButLoadedAt(String table) throws SQLException {
        return strings("SELECT (to_jsonb(t) - 'loaded_at' - 'event_seq')::text FROM " + table + " t ORDER BY customer_id, valid_from");
    }

    private List<String> columns(String relation) throws SQLException {
        return strings("SELECT attname::text FROM pg_attribute WHERE attrelid = '" + relation + "'::regclass AND attnum > 0 "
                + "AND NOT attisdropped ORDER BY attnum");
    }

    /** The table's, its view's and its function's OIDs, grants and comments. */
    private List<List<Object>> identity(EntitySpec live) throws SQLException {
        List<List<Object>> out = new ArrayList<>();
        for (String rel : List.of(live.table(), live.currentView())) {
            out.addAll(JobsFixtures.query(ds, "SELECT c.relname::text, c.oid::bigint, coalesce(c.relacl::text, ''), "
                    + "coalesce(obj_description(c.oid, 'pg_class'), '') FROM pg_class c WHERE c.oid = ?::regclass", rel));
            out.addAll(JobsFixtures.query(ds, "SELECT attname::text, coalesce(col_description(attrelid, attnum), '') FROM pg_attribute "
                    + "WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum", rel));
        }
        out.addAll(JobsFixtures.query(ds, "SELECT p.oid::bigint, coalesce(p.proacl::text, '') FROM pg_proc p WHERE p.oid = ?::regprocedure",
                live.asOfFunction() + "(timestamptz)"));
        return out;
    }

    /** Who may do what on the table and the function (but their owner), as aclexplode has it. */
    private List<List<Object>> grants(String table, String function) throws SQLException {
        return JobsFixtures.query(ds, "SELECT 'table', a.grantee::regrole::text, a.privilege_type, a.is_grantable FROM pg_class c, "
                + "aclexplode(c.relacl) a WHERE c.oid = ?::regclass AND a.grantee <> c.relowner UNION ALL SELECT 'function', "
                + "a.grantee::regrole::text, a.privilege_type, a.is_grantable FROM pg_proc p, aclexplode(p.proacl) a "
                + "WHERE p.oid = ?::regprocedure AND a.grantee <> p.proowner ORDER BY 1, 2, 3", table, function);
    }

    private List<List<Object>> catalog(String entity) throws SQLException {
        return JobsFixtures.query(ds, "SELECT column_name, sql_type, role, origin, widened_from FROM dimstream.entity_columns "
                + "WHERE entity = ? ORDER BY column_name", entity);
    }

    private List<String> strings(String sql) throws SQLException {
        return JobsFixtures.query(ds, sql).stream().map(r -> (String) r.get(0)).toList();
    }

    private void exec(String... statements) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

}
