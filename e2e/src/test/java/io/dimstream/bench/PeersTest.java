package io.dimstream.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.SurrogateKey;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The benchmark's peers write what the writer writes for an in-order change set (one change per
 * key and batch, no re-assertion), so a ratio against them compares the same work: the bare close +
 * insert leaves a table equal to the writer's in every column but {@code loaded_at}, and the dbt
 * snapshot holds the same versions (data, valid_from, valid_to under dbt's names). The writer's
 * table is itself checked against the versions the events define.
 */
class PeersTest {

    private static final String DATA = "customer_id, email, full_name, country, city, loyalty_tier, last_login";

    @Test
    void bareAndDbtPeersEndWithTheWritersTableForAnInOrderChangeSet() throws Exception {
        DataSource ds = TestPostgres.dataSource();
        EntitySpec spec = WriterBenchmark.spec(false);
        EntitySpec bareSpec = spec.withTable("bench_bare");
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_customer, bench_customer_events, bench_bare, bench_bare_events, "
                    + "peers_dbt_snapshot, peers_dbt_source CASCADE");
        }
        EntityTables.ensure(ds, spec);
        EntityTables.ensure(ds, bareSpec);
        Scd2Writer writer = new Scd2Writer(ds, "16MB");
        Instant base = WriterBenchmark.BASE;
        Random rnd = new Random(7);
        // round 0: 200 new keys; round 1: 100 of them change and 50 keys are new; round 2: 100
        // keys change, half of them changed in round 1 too
        List<List<Event>> rounds = List.of(
                WriterBenchmark.events(IntStream.range(0, 200).toArray(), base, 0, rnd, 0),
                WriterBenchmark.events(IntStream.range(0, 250).filter(k -> k < 100 || k >= 200).toArray(), base, 1, rnd, 1_000),
                WriterBenchmark.events(IntStream.range(50, 150).toArray(), base, 2, rnd, 2_000));
        Peers.Dbt.createSourceTable(ds, "peers_dbt_source");
        for (int r = 0; r < rounds.size(); r++) {
            List<Event> batch = rounds.get(r);
            writer.apply(spec, batch);
            Peers.Bare.apply(ds, spec.name(), "bench_bare", batch, "16MB");
            Peers.Dbt.applyToSource(ds, "peers_dbt_source", batch);
            if (r == 0) {
                Peers.Dbt.build(ds, "peers_dbt_snapshot", "peers_dbt_source");
            } else {
                // both hard_deletes modes: no key leaves the source, so both give the same table
                Peers.Dbt.snapshot(ds, "peers_dbt_snapshot", "peers_dbt_source", r == 2, "16MB");
            }
        }

        List<List<Object>> expected = expectedVersions(spec, rounds);
        List<List<Object>> writers = rows(ds, "SELECT " + DATA + ", surrogate_key, valid_from, valid_to, is_current, is_deleted, "
                + "record_hash, source_topic, source_partition, source_offset FROM bench_customer ORDER BY customer_id, valid_from");
        assertThat(writers).hasSize(450).containsExactlyElementsOf(expected);
        List<List<Object>> bare = rows(ds, "SELECT " + DATA + ", surrogate_key, valid_from, valid_to, is_current, is_deleted, "
                + "record_hash, source_topic, source_partition, source_offset FROM bench_bare ORDER BY customer_id, valid_from");
        assertThat(bare).containsExactlyElementsOf(writers);
        // dbt's versions: the same data, valid_from and valid_to, under dbt's names; its own
        // columns as dbt defines them (updated_at is the source's time of the change)
        List<List<Object>> dbt = rows(ds, "SELECT " + DATA + ", dbt_valid_from, dbt_valid_to, dbt_updated_at = updated_at, "
                + "dbt_valid_from = updated_at, dbt_scd_id = md5(customer_id || '|' || cast(updated_at as varchar)) "
                + "FROM peers_dbt_snapshot ORDER BY customer_id, dbt_valid_from");
        List<List<Object>> writersForDbt = new ArrayList<>();
        for (List<Object> w : writers) {
            List<Object> row = new ArrayList<>(w.subList(0, 7));
            row.add(w.get(8));
            row.add(w.get(9));
            row.addAll(List.of(true, true, true));
            writersForDbt.add(row);
        }
        assertThat(dbt).containsExactlyElementsOf(writersForDbt);
    }

    /** The versions the in-order events define: each event a version until the key's next event. */
    private static List<List<Object>> expectedVersions(EntitySpec spec, List<List<Event>> rounds) {
        List<Event> all = new ArrayList<>();
        rounds.forEach(all::addAll);
        all.sort(Comparator.comparing((Event e) -> (String) e.data().get("customer_id")).thenComparing(Event::eventTime));
        List<List<Object>> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            Event e = all.get(i);
            String key = (String) e.data().get("customer_id");
            boolean last = i + 1 == all.size() || !all.get(i + 1).data().get("customer_id").equals(key);
            List<Object> row = new ArrayList<>();
            for (String col : Peers.DATA) {
                row.add(e.data().get(col));
            }
            row.add(SurrogateKey.of(spec.name(), List.of(key), e.eventTime()));
            row.add(e.eventTime());
            row.add(last ? null : all.get(i + 1).eventTime());
            row.add(last);
            row.add(false);
            row.add(RecordHash.hex(RecordHash.of(Peers.TRACKED.stream().map(col -> (String) e.data().get(col)).toList())));
            row.add(e.source().topic());
            row.add(e.source().partition());
            row.add(e.source().offset());
            out.add(row);
        }
        return out;
    }

    /** Whole rows, timestamps as instants and bytea as hex, so rows of both kinds of table compare. */
    private static List<List<Object>> rows(DataSource ds, String sql) throws SQLException {
        List<List<Object>> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute("SET TimeZone = 'UTC'"); // dbt_scd_id hashes updated_at's text, made in UTC
            ResultSet rs = s.executeQuery(sql);
            ResultSetMetaData md = rs.getMetaData();
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    Object o = rs.getObject(i);
                    if (o instanceof Timestamp) {
                        o = rs.getTimestamp(i).toInstant();
                    } else if (o instanceof byte[] b) {
                        o = RecordHash.hex(b);
                    }
                    row.add(o);
                }
                out.add(row);
            }
        }
        return out;
    }
}
