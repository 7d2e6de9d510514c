package io.dimstream.db.write;

import static io.dimstream.db.write.Fixtures.deleted;
import static io.dimstream.db.write.Fixtures.h;
import static io.dimstream.db.write.Fixtures.version;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.Unchanged;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Values the source did not send ({@link Unchanged}: Debezium's placeholder for an unchanged TOAST
 * column, a NULL under {@code ignore-null-updates}) take the value of the key's event before, in
 * order and for late events in the middle of history; never stored, never hashed as a value.
 */
class UnchangedValuesTest {

    private static final Object U = Unchanged.VALUE;

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    @Test
    void inOrderEventsTakeTheValuesOfTheEventBefore() throws SQLException {
        EntitySpec spec = freshPeople();
        writer.apply(spec, List.of(up(1, 1, "P1", "Ann", "Oslo", 1L)));
        writer.apply(spec, List.of(up(2, 2, "P1", U, "Rome", 2L)));
        writer.apply(spec, List.of(up(3, 3, "P1", U, U, 3L), up(4, 4, "P1", "Bob", U, U)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                version("P1", "Ann", "Rome", 3L, 2, 4),
                version("P1", "Bob", "Rome", 3L, 4, null)));
    }

    @Test
    void aLateEventTakesTheValuesOfTheEventItLandsAfter() throws SQLException {
        EntitySpec spec = freshPeople();
        writer.apply(spec, List.of(up(1, 1, "P1", "Ann", "Oslo", 1L), up(2, 5, "P1", "Ann", "Rome", 2L)));

        writer.apply(spec, List.of(up(3, 3, "P1", U, "Bern", 3L)));
        writer.apply(spec, List.of(up(4, 4, "P1", "Bob", U, 4L)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", "Bern", 3L, 3, 4),
                version("P1", "Bob", "Bern", 4L, 4, 5),
                version("P1", "Ann", "Rome", 2L, 5, null)));
    }

    /** Two changes of one source transaction share its commit time: the second takes from the first, batched together or not. */
    @Test
    void anEarlierChangeAtTheSameTimeCountsInOneBatchOrTwo() throws SQLException {
        EntitySpec together = freshPeople();
        EntitySpec apart = freshPeople();
        Event insert = up(1, 1, "P1", "Ann", "Oslo", 1L);
        Event update = up(2, 1, "P1", U, "Rome", U);

        writer.apply(together, List.of(insert, update));
        writer.apply(apart, List.of(insert));
        writer.apply(apart, List.of(update));

        List<ExpectedRow> expected = List.of(version("P1", "Ann", "Rome", 1L, 1, null));
        assertThat(EntityTableReader.rows(ds, together)).isEqualTo(expected);
        assertThat(EntityTableReader.rows(ds, apart)).isEqualTo(expected);
    }

    @Test
    void withNothingBeforeOrADeleteBeforeTheValueIsNull() throws SQLException {
        EntitySpec spec = freshPeople();
        writer.apply(spec, List.of(up(1, 1, "P1", U, "Oslo", 1L)));
        writer.apply(spec, List.of(up(2, 2, "P1", "Ann", "Oslo", 1L), del(3, 3, "P1"), up(4, 4, "P1", U, "Rome", U)));

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                version("P1", null, "Oslo", 1L, 1, 2),
                version("P1", "Ann", "Oslo", 1L, 2, 3),
                deleted("P1", "Ann", "Oslo", 1L, 3, 4),
                version("P1", null, "Rome", null, 4, null)));
    }

    @Test
    void aReDeliveredEventResolvesAsBeforeAndChangesNothing() throws SQLException {
        EntitySpec spec = freshPeople();
        Event first = up(1, 1, "P1", "Ann", "Oslo", 1L);
        Event partial = up(2, 2, "P1", U, "Rome", 2L);
        writer.apply(spec, List.of(first, partial));
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);

        ApplyResult again = writer.apply(spec, List.of(partial, first));

        assertThat(again).isEqualTo(ApplyResult.builder().received(2).duplicates(2).build());
        assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(before);
    }

    /**
     * Random feeds over every kind of column, with unchanged values, deletes, same-time ties and late
     * events, applied in random batches to two tables: both equal the reference model (which resolves
     * each event against the events that arrived before it), and applying the feed again changes nothing.
     */
    @Test
    void randomFeedsEqualTheModelWhateverTheBatching() throws SQLException {
        Random random = new Random(20261202L);
        for (int round = 0; round < 12; round++) {
            EntitySpec a = freshAccounts();
            EntitySpec b = freshAccounts();
            List<Event> feed = feed(random, 60);

            applyInBatches(a, feed, random);
            applyInBatches(b, feed, random);

            List<ExpectedRow> expected = new ReferenceModel(a).rows(feed);
            assertThat(EntityTableReader.rows(ds, a)).as("round %d", round).isEqualTo(expected);
            assertThat(EntityTableReader.rows(ds, b)).as("round %d", round).isEqualTo(expected);
            ApplyResult again = writer.apply(a, feed);
            assertThat(List.of(again.rowsInserted(), again.rowsUpdated(), again.rowsDeleted())).as("round %d", round)
                    .isEqualTo(List.of(0, 0, 0));
            assertThat(EntityTableReader.rows(ds, a)).as("round %d", round).isEqualTo(expected);
        }
    }

    private void applyInBatches(EntitySpec spec, List<Event> feed, Random random) throws SQLException {
        int i = 0;
        while (i < feed.size()) {
            int n = 1 + random.nextInt(12);
            writer.apply(spec, feed.subList(i, Math.min(feed.size(), i + n)));
            i += n;
        }
    }

    /** Events in arrival order (seq = rank): 3 keys, 8 hours, some re-delivered. */
    private static List<Event> feed(Random r, int n) {
        List<Event> out = new ArrayList<>();
        for (int seq = 1; seq <= n; seq++) {
            if (!out.isEmpty() && r.nextInt(10) == 0) {
                out.add(out.get(r.nextInt(out.size()))); // an exact re-delivery
                continue;
            }
            String id = "K" + r.nextInt(3);
            Instant t = h(r.nextInt(8));
            Source src = Source.kafka("accounts", 0, seq);
            if (r.nextInt(8) == 0) {
                out.add(Event.delete(t, Map.of("id", id, "n", 7L), seq, src));
                continue;
            }
            Map<String, Object> data = new LinkedHashMap<>();
            data.put("id", id);
            data.put("n", 7L);
            data.put("name", pick(r, "Ann", "Bob", null, U));
            data.put("amount", pick(r, new BigDecimal("1.50"), new BigDecimal("-2"), null, U));
            data.put("born", pick(r, "1999-12-31", "0001-01-01", null, U));
            data.put("seen", pick(r, "2025-03-01T10:00:00.123456Z", "9999-12-31T23:59:59.999999Z", null, U));
            data.put("active", pick(r, true, false, null, U));
            data.put("score", pick(r, 1.0E20, -0.5, null, U));
            data.put("note", pick(r, "x", "y", null, U));
            data.put("doc", pick(r, "{\"b\": 1, \"a\": [1, 2.50]}", "[]", null, U));
            data.put("local", pick(r, "2025-03-01T10:00:00.5", "0001-01-01T00:00:00", null, U));
            data.put("at", pick(r, "23:59:59.999999", "00:00:00", null, U));
            data.put("raw", pick(r, "\\x00ff", "\\x", null, U));
            out.add(Event.upsert(t, data, seq, src));
        }
        return out;
    }

    private static Object pick(Random r, Object... choices) {
        // unchanged half of the time, so that chains of them occur
        return r.nextBoolean() ? U : choices[r.nextInt(choices.length)];
    }

    private EntitySpec freshAccounts() throws SQLException {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("n", ColumnType.BIGINT);
        cols.put("name", ColumnType.TEXT);
        cols.put("amount", ColumnType.NUMERIC);
        cols.put("born", ColumnType.DATE);
        cols.put("seen", ColumnType.TIMESTAMPTZ);
        cols.put("active", ColumnType.BOOLEAN);
        cols.put("score", ColumnType.DOUBLE);
        cols.put("note", ColumnType.TEXT);
        cols.put("doc", ColumnType.JSONB);
        cols.put("local", ColumnType.TIMESTAMP);
        cols.put("at", ColumnType.TIME);
        cols.put("raw", ColumnType.BYTEA);
        String table = Fixtures.uniqueTable("accounts");
        EntitySpec spec = EntitySpec.builder()
                .name(table)
                .table(table)
                .key(List.of("id", "n"))
                .tracked(List.of("name", "amount", "born", "seen", "active", "score", "doc", "local", "at", "raw"))
                .type1(List.of("note"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
        EntityTables.ensure(ds, spec);
        return spec;
    }

    private EntitySpec freshPeople() throws SQLException {
        String table = Fixtures.uniqueTable("people");
        EntitySpec spec = Fixtures.people(table, table, Optional.empty());
        EntityTables.ensure(ds, spec);
        return spec;
    }

    private static Event up(long seq, int hour, String id, Object name, Object city, Object lastLogin) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("name", name);
        data.put("city", city);
        data.put("last_login", lastLogin);
        return Event.upsert(h(hour), data, seq, Source.kafka("people", 0, seq));
    }

    private static Event del(long seq, int hour, String id) {
        return Fixtures.del(seq, hour, id);
    }
}
