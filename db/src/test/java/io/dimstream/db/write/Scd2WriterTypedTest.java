package io.dimstream.db.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TypedEvent;
import io.dimstream.db.event.TypedEventCodec;
import io.dimstream.db.event.Unchanged;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link Scd2Writer#applyTyped} (events validated once, before, as the sink takes them from the
 * changes topic, also through {@link TypedEventCodec}) against
 * {@link Scd2Writer#apply(java.sql.Connection, EntitySpec, List, ApplyOptions)} (validating): the
 * same batches give the same table, row by row (surrogate keys are a function of the entity's name,
 * the key and valid_from, all compared, so the two tables, under two names, are not compared on
 * them), and the same results.
 */
class Scd2WriterTypedTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    @Test
    void theYdbExampleGivesTheSameTableThroughBothEntryPoints() throws SQLException {
        List<Event> events = Fixtures.ydbEvents();
        List<List<Event>> batches = new ArrayList<>();
        for (int i = 0; i < events.size(); i += 3) {
            batches.add(events.subList(i, Math.min(events.size(), i + 3)));
        }
        String a = Fixtures.uniqueTable("ydb_untyped");
        String b = Fixtures.uniqueTable("ydb_typed");
        EntitySpec untyped = Fixtures.ydb(a, a);
        EntitySpec typed = Fixtures.ydb(b, b);

        Runs runs = applyBoth(untyped, typed, batches, ApplyOptions.DEFAULT);

        assertThat(runs.typed()).isEqualTo(runs.untyped());
        assertThat(EntityTableReader.rows(ds, typed)).isEqualTo(Fixtures.ydbExpected(typed));
        assertThat(EntityTableReader.rows(ds, typed)).isEqualTo(EntityTableReader.rows(ds, untyped));
    }

    @Test
    void lateDeletedUnchangedDuplicateAndRefusedEventsGiveTheSameTableAndResults() throws SQLException {
        Object u = Unchanged.VALUE;
        List<List<Event>> batches = List.of(
                List.of(up(1, 1, "P1", "Ann", "Oslo", 1L), up(2, 1, "P2", "Bo", "Rome", 1L), up(3, 3, "P1", "Ann", "Bern", 2L)),
                List.of(up(4, 2, "P1", u, "Pisa", 3L), Fixtures.del(5, 4, "P2"), up(6, 1, "P1", "Ann", "Oslo", 1L),
                        up(7, 5, "P3", null, "", null), bad(8)),
                List.of(up(9, 6, "P2", "Bo", u, u), up(10, 6, "P2", "Bo", "Lund", 9L), up(11, 0, "P1", "Cy", "Oslo", 0L)),
                List.of(up(12, 7, "P1", u, u, 4L), up(13, 7, "P3", "Di", null, 2L), bad(14)));
        for (ApplyOptions options : List.of(ApplyOptions.DEFAULT, ApplyOptions.ISOLATING)) {
            String a = Fixtures.uniqueTable("people_untyped");
            String b = Fixtures.uniqueTable("people_typed");
            EntitySpec untyped = Fixtures.people(a, a, Optional.empty());
            EntitySpec typed = Fixtures.people(b, b, Optional.empty());

            Runs runs = applyBoth(untyped, typed, batches, options);

            assertThat(runs.typed()).as(options.toString()).isEqualTo(runs.untyped());
            assertThat(runs.typed().get(1).rejected()).isEqualTo(List.of(new Rejection(Source.kafka("people", 0, 8),
                    "column 'last_login': expected bigint, got string \"yesterday\"")));
            assertThat(EntityTableReader.rows(ds, typed)).as(options.toString())
                    .isEqualTo(EntityTableReader.rows(ds, untyped));
        }
    }

    /** Each batch's results, untyped and typed. */
    private record Runs(List<ApplyResult> untyped, List<ApplyResult> typed) {
    }

    /**
     * Each batch applied through the validating entry point to {@code untyped}'s table, and, after
     * validating and a round trip through the wire codec, through the typed one to {@code typed}'s;
     * the validator's rejections are added to the typed result, as the sink adds them to its rejects.
     */
    private Runs applyBoth(EntitySpec untyped, EntitySpec typed, List<List<Event>> batches, ApplyOptions options) throws SQLException {
        EntityTables.ensure(ds, untyped);
        EntityTables.ensure(ds, typed);
        List<ApplyResult> a = new ArrayList<>();
        List<ApplyResult> b = new ArrayList<>();
        EventValidator validator = new EventValidator(typed);
        TypedEventCodec codec = TypedEventCodec.of(typed);
        for (List<Event> batch : batches) {
            a.add(Transactions.inTransaction(ds, c -> writer.apply(c, untyped, batch, options)));
            List<TypedEvent> valid = new ArrayList<>();
            List<Rejection> refused = new ArrayList<>();
            for (Event e : batch) {
                EventValidator.Result r = validator.validate(e);
                if (r.ok()) {
                    valid.add(codec.decode(codec.encode(r.event())));
                } else {
                    refused.add(r.rejection());
                }
            }
            ApplyResult r = Transactions.inTransaction(ds, c -> writer.applyTyped(c, typed, valid, options));
            b.add(ApplyResult.builder().received(refused.size()).rejected(refused).build().plus(r));
        }
        return new Runs(a, b);
    }

    private static Event up(long seq, int hour, String id, Object name, Object city, Object lastLogin) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("name", name);
        data.put("city", city);
        data.put("last_login", lastLogin);
        return Event.upsert(Fixtures.h(hour), data, seq, Source.kafka("people", 0, seq));
    }

    private static Event bad(long seq) {
        return up(seq, 2, "P9", "Ed", "Oslo", "yesterday");
    }
}
