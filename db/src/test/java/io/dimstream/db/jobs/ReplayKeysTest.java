package io.dimstream.db.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ErasedKeys;
import io.dimstream.db.write.EventMemory;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * A repair's key restriction ({@link ReplayKeys}): read from the command line's text against the
 * key columns (one column and two, with refusals naming the field), matched against events as a
 * decoder makes them, stored with the job and audited, and the clear that precedes the rebuild
 * (whole rows of the table and the memory after it).
 */
class ReplayKeysTest {

    private static final AtomicInteger N = new AtomicInteger();
    private final DataSource ds = TestPostgres.dataSource();

    /** key (region text, id bigint), tracked [name] */
    private static EntitySpec accounts() {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("region", ColumnType.TEXT);
        cols.put("id", ColumnType.BIGINT);
        cols.put("name", ColumnType.TEXT);
        String name = "repair_keys_" + N.incrementAndGet();
        return EntitySpec.builder().name(name).table(name).key(List.of("region", "id")).tracked(List.of("name")).type1(List.of())
                .columns(cols).latenessHorizon(Optional.empty()).build();
    }

    private static Map<String, Object> data(Object region, Object id) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("region", region);
        d.put("id", id);
        d.put("name", "n");
        return d;
    }

    @Test
    void aOneColumnKeyIsAListOfValuesAndAKeyOfSeveralColumnsJsonObjects() {
        EntitySpec customer = JobsFixtures.customer("repair_keys_c", Optional.empty());
        assertThat(ReplayKeys.parseKeys("--keys", " C2, C1 ,C2", customer)).isEqualTo(new ReplayKeys(List.of(List.of("C2"), List.of("C1")), null));
        assertThat(ReplayKeys.parseKeys("--keys", "[\"C1\", \"C,3\"]", customer)).isEqualTo(new ReplayKeys(List.of(List.of("C1"), List.of("C,3")), null));

        EntitySpec acc = accounts();
        ReplayKeys two = ReplayKeys.parseKeys("--keys", "{\"id\": 7, \"region\": \"eu\"}, {\"region\": \"us\", \"id\": \"01\"}", acc);
        assertThat(two).isEqualTo(new ReplayKeys(List.of(List.of("eu", "7"), List.of("us", "1")), null));
        assertThat(two.toString()).isEqualTo("keys (eu, 7), (us, 1)");
        assertThat(two.toJson()).isEqualTo("{\"keys\":[[\"eu\",\"7\"],[\"us\",\"1\"]]}");
        assertThat(ReplayKeys.fromJson(two.toJson())).isEqualTo(two);
        // events as decoders make them: the id as a JSON number of any width, or a text
        assertThat(List.of(two.matches(acc, data("eu", 7)), two.matches(acc, data("eu", 7L)), two.matches(acc, data("us", "1")),
                two.matches(acc, data("us", 7)), two.matches(acc, data("eu", "x")), two.matches(acc, data(null, 7))))
                .isEqualTo(List.of(true, true, true, false, false, false));

        ReplayKeys prefix = ReplayKeys.parsePrefix("--key-prefix", "e", acc);
        assertThat(List.of(prefix.matches(acc, data("eu", 1)), prefix.matches(acc, data("us", 1)), prefix.toString()))
                .isEqualTo(List.of(true, false, "keys starting with \"e\""));
    }

    @Test
    void oneKeyToEraseIsItsWholeTextOrAJsonObjectNamingEveryKeyColumn() {
        EntitySpec customer = JobsFixtures.customer("erase_key_c", Optional.empty());
        EntitySpec accounts = accounts();
        assertThat(List.of(ReplayKeys.parseKey("--key", " Smith, John ", customer), ReplayKeys.parseKey("--key", "{\"customer_id\": \"C1\"}", customer),
                ReplayKeys.parseKey("--key", "{\"id\": 7, \"region\": \"eu\"}", accounts),
                ReplayKeys.parseKey("--key", "{\"region\": \"eu\", \"id\": \"07\"}", accounts)))
                .isEqualTo(List.of(List.of("Smith, John"), List.of("C1"), List.of("eu", "7"), List.of("eu", "7")));
        assertThatThrownBy(() -> ReplayKeys.parseKey("--key", "eu", accounts)).hasMessage("--key: the key has 2 columns [region, id]; "
                + "give it as a JSON object naming them, e.g. {\"region\": ..., \"id\": ...}");
        assertThatThrownBy(() -> ReplayKeys.parseKey("--key", "{\"region\": \"eu\", \"id\": 1}, {\"region\": \"us\", \"id\": 2}", accounts))
                .hasMessage("--key: one key at a time, got 2 objects");
        assertThatThrownBy(() -> ReplayKeys.parseKey("--key", " ", accounts)).hasMessage("--key: an empty key");
        assertThat(new ReplayKeys(List.of(List.of("C1"), List.of("C2")), null).without(List.of(List.of("C1"), List.of("C9"))))
                .isEqualTo(new ReplayKeys(List.of(List.of("C2")), null));
        assertThat(new ReplayKeys(List.of(List.of("C1")), null).without(List.of(List.of("C1"))).toString())
                .isEqualTo("no keys (those it listed were erased)");
    }

    @Test
    void refusalsNameTheField() {
        EntitySpec acc = accounts();
        assertThatThrownBy(() -> ReplayKeys.parseKeys("--keys", "eu,7", acc)).hasMessage("--keys: the key has 2 columns [region, id]; "
                + "give each key as a JSON object naming them, e.g. {\"region\": ..., \"id\": ...}");
        assertThatThrownBy(() -> ReplayKeys.parseKeys("--keys", "{\"region\": \"eu\"}", acc))
                .hasMessage("--keys: the key {\"region\":\"eu\"} must name exactly the key columns [region, id]");
        assertThatThrownBy(() -> ReplayKeys.parseKeys("--keys", "{\"region\": \"eu\", \"id\": \"seven\"}", acc))
                .hasMessageStartingWith("--keys: key column id: ");
        assertThatThrownBy(() -> ReplayKeys.parseKeys("--keys", "{\"region\": \"eu\", \"id\": 7", acc))
                .hasMessageStartingWith("--keys: not JSON objects or a JSON array (");
        assertThatThrownBy(() -> ReplayKeys.parseKeys("--keys", "  ", acc))
                .hasMessage("--keys: list the keys to repair, e.g. C1,C2 (or JSON objects for a key of several columns)");
        assertThatThrownBy(() -> ReplayKeys.parsePrefix("--key-prefix", "", acc))
                .hasMessage("--key-prefix: must not be empty (an empty prefix is every key: replay without it)");
        EntitySpec numeric = EntitySpec.builder().name("n").table("n").key(List.of("id")).tracked(List.of("name")).type1(List.of())
                .columns(Map.of("id", ColumnType.BIGINT, "name", ColumnType.TEXT)).latenessHorizon(Optional.empty()).build();
        assertThatThrownBy(() -> ReplayKeys.parsePrefix("--key-prefix", "1", numeric))
                .hasMessage("--key-prefix: a prefix applies to a text key; the first key column id of entity n is bigint (list the keys instead)");
    }

    @Test
    void theClearRemovesTheKeysRowsAndMemoryAndNothingElse() throws SQLException {
        EntitySpec acc = accounts();
        EntityTables.ensure(ds, acc);
        Scd2Writer w = new Scd2Writer(ds);
        List<Event> events = List.of(ev("eu", 7, 1), ev("eu", 7, 2), ev("eu", 8, 3), ev("us", 7, 4), ev("eb", 1, 5));
        w.apply(acc, events);
        List<List<Object>> keep = JobsFixtures.query(ds, "SELECT region, id, valid_from, source_offset FROM " + Sql.table(acc.table())
                + " WHERE NOT (region = 'eu' AND id = 7) AND region <> 'us' ORDER BY region, id, valid_from");

        int cleared = Transactions.inTransaction(ds, c -> ReplayKeys.parseKeys("--keys", "{\"region\": \"eu\", \"id\": 7}, "
                + "{\"region\": \"us\", \"id\": 7}", acc).clear(c, acc));

        assertThat(cleared).isEqualTo(2); // eu/7: one version (both events carry the same name), us/7: one
        assertThat(JobsFixtures.query(ds, "SELECT region, id, valid_from, source_offset FROM " + Sql.table(acc.table())
                + " ORDER BY region, id, valid_from")).isEqualTo(keep);
        // the remembered events of the other keys stay (their memory rows, or version starts it keeps no row of)
        assertThat(JobsFixtures.query(ds, "SELECT region, id, seq FROM " + EventMemory.eventsSql(acc) + " ev ORDER BY region, id"))
                .isEqualTo(List.of(List.of("eb", 1L, 5L), List.of("eu", 8L, 3L)));
        assertThat(JobsFixtures.query(ds, "SELECT region, id FROM " + Sql.table(acc.memoryTable()))).as("the cleared keys' memory rows").isEmpty();

        int byPrefix = Transactions.inTransaction(ds, c -> ReplayKeys.parsePrefix("--key-prefix", "eu", acc).clear(c, acc));
        assertThat(byPrefix).isEqualTo(1);
        assertThat(JobsFixtures.query(ds, "SELECT region, id FROM " + Sql.table(acc.table()))).isEqualTo(List.of(List.of("eb", 1L)));
    }

    @Test
    void aRepairIsStoredWithItsJobAuditedAndRefusedForAShadow() throws SQLException {
        ReplayJobs jobs = new ReplayJobs(ds);
        ReplayKeys keys = new ReplayKeys(List.of(List.of("C1")), null);
        long id = jobs.submit("customer", "crm", ReplaySource.earliest(), ReplayTarget.LIVE, keys, "ann");
        long whole = jobs.submit("customer", "crm", ReplaySource.earliest(), ReplayTarget.LIVE, "ann");

        assertThat(List.of(jobs.keys(id), jobs.keys(whole))).isEqualTo(List.of(Optional.of(keys), Optional.empty()));
        assertThat(JobsFixtures.query(ds, "SELECT actor, action, detail::text FROM dimstream.admin_audit WHERE target = ?", "replay_job:" + id))
                .isEqualTo(List.of(List.of("ann", "replay.submit", "{\"from\": \"earliest\", \"keys\": \"keys C1\", \"topic\": \"crm\", "
                        + "\"entity\": \"customer\", \"target\": \"live\"}")));
        assertThatThrownBy(() -> jobs.submit("customer", "crm", ReplaySource.earliest(), ReplayTarget.SHADOW, keys, "ann"))
                .hasMessage("keys: a replay restricted to keys writes the live table (a shadow of some keys would replace the whole "
                        + "table when swapped in)");
    }

    @Test
    void aRepairOfAKeyErasedWithATombstoneIsRefusedAndStoresNothingOfIt() throws SQLException {
        ReplayJobs jobs = new ReplayJobs(ds);
        String entity = "repair_erased_" + N.incrementAndGet();
        try (Connection c = ds.getConnection()) {
            ErasedKeys.remember(c, entity, List.of(List.of("C9")));
        }

        assertThatThrownBy(() -> jobs.submit(entity, "crm", ReplaySource.earliest(), ReplayTarget.LIVE,
                new ReplayKeys(List.of(List.of("C1"), List.of("C9")), null), "ann"))
                .hasMessage("keys: 1 of the keys given is erased with a tombstone (dimstream erase): a repair cannot bring an erased "
                        + "key back; leave it out");
        assertThat(JobsFixtures.query(ds, "SELECT id FROM dimstream.replay_jobs WHERE entity = ?", entity)).isEmpty();
        assertThat(JobsFixtures.query(ds, "SELECT actor FROM dimstream.admin_audit WHERE detail->>'entity' = ?", entity)).isEmpty();
    }

    private static Event ev(String region, long id, long seq) {
        return Event.upsert(JobsFixtures.T0.plus(Duration.ofDays(seq)), data(region, id), seq, Source.kafka("acc", 0, seq));
    }
}
