package io.dimstream.db.write;

import static io.dimstream.db.write.Fixtures.h;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
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
 * A load file mixing good lines with every kind of bad one: each bad line is rejected with its
 * exact reason and its line, and the good lines around them land.
 */
class BadInputTest {

    private static final String FILE = "mixed.jsonl";

    private static final List<String> LINES = List.of(
            /* 1 good        */ "{\"op\":\"upsert\",\"event_time\":\"2025-01-01T01:00:00Z\",\"data\":{\"id\":\"A\",\"name\":\"Ann\",\"n\":1}}",
            /* 2 NULL key    */ "{\"op\":\"upsert\",\"event_time\":\"2025-01-01T01:00:00Z\",\"data\":{\"id\":null,\"name\":\"Nil\",\"n\":2}}",
            /* 3 missing key */ "{\"op\":\"upsert\",\"event_time\":\"2025-01-01T01:00:00Z\",\"data\":{\"name\":\"Nobody\",\"n\":3}}",
            /* 4 bad time    */ "{\"op\":\"upsert\",\"event_time\":\"2025-13-45T01:00:00Z\",\"data\":{\"id\":\"B\",\"name\":\"Bad\",\"n\":4}}",
            /* 5 good        */ "{\"op\":\"upsert\",\"event_time\":\"2025-01-01T02:00:00Z\",\"data\":{\"id\":\"B\",\"name\":\"Bob\",\"n\":5}}",
            /* 6 wrong type  */ "{\"op\":\"upsert\",\"event_time\":\"2025-01-01T02:00:00Z\",\"data\":{\"id\":\"C\",\"name\":\"Cy\",\"n\":\"abc\"}}",
            /* 7 unknown col */ "{\"op\":\"upsert\",\"event_time\":\"2025-01-01T02:00:00Z\",\"data\":{\"id\":\"C\",\"name\":\"Cy\",\"n\":6,\"colour\":\"red\"}}",
            /* 8 not JSON    */ "{\"op\":\"upsert\",\"event_time\":\"2025-01-01T0",
            /* 9 unknown op  */ "{\"op\":\"merge\",\"event_time\":\"2025-01-01T02:00:00Z\",\"data\":{\"id\":\"C\"}}",
            /* 10 good       */ "{\"op\":\"upsert\",\"event_time\":\"2025-01-01T03:00:00Z\",\"data\":{\"id\":\"A\",\"name\":\"Ann\",\"n\":10}}",
            /* 11 good       */ "{\"op\":\"delete\",\"event_time\":\"2025-01-01T04:00:00Z\",\"data\":{\"id\":\"B\"}}");

    private final DataSource ds = TestPostgres.dataSource();

    @Test
    void eachBadLineIsRejectedWithItsReasonAndLineAndTheGoodLinesLand() throws SQLException {
        String table = Fixtures.uniqueTable("mixed");
        EntitySpec spec = spec(table);
        EntityTables.ensure(ds, spec);
        List<Event> events = new ArrayList<>();
        List<Rejection> unparsed = new ArrayList<>();
        for (int i = 0; i < LINES.size(); i++) {
            NativeEventJson.Parsed p = NativeEventJson.parse(LINES.get(i), i + 1, line(i + 1));
            if (p.rejection() != null) {
                unparsed.add(p.rejection());
            } else {
                events.add(p.event());
            }
        }

        ApplyResult result = new Scd2Writer(ds).apply(spec, events);

        assertThat(unparsed).hasSize(2);
        assertThat(unparsed.get(0).source()).isEqualTo(line(8));
        assertThat(unparsed.get(0).reason()).startsWith("not valid JSON: ");
        assertThat(unparsed.get(1)).isEqualTo(new Rejection(line(9), "field 'op' has unknown value \"merge\" (expected \"upsert\" or \"delete\")"));
        assertThat(result).isEqualTo(ApplyResult.builder()
                .received(9)
                .newKeys(2)
                .changed(1)
                .deleted(1)
                .rejected(List.of(
                        new Rejection(line(2), "key column 'id' is NULL"),
                        new Rejection(line(3), "key column 'id' is missing"),
                        new Rejection(line(4), "event_time is not an ISO-8601 instant with offset: \"2025-13-45T01:00:00Z\""),
                        new Rejection(line(6), "column 'n': expected bigint, got string \"abc\""),
                        new Rejection(line(7), "column 'colour' is not declared for entity '" + table + "'")))
                .rowsInserted(4)
                .build());
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(List.of(
                row("A", "Ann", 1L, 1, 3, false),
                row("A", "Ann", 10L, 3, null, false),
                row("B", "Bob", 5L, 2, 4, false),
                row("B", "Bob", 5L, 4, null, true)));
    }

    private static Source line(long n) {
        return Source.line(FILE, n);
    }

    private static ExpectedRow row(String id, String name, long n, int fromHour, Integer toHour, boolean deleted) {
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("name", name);
        attrs.put("n", n);
        return new ExpectedRow(Map.of("id", id), attrs, h(fromHour), toHour == null ? null : h(toHour),
                toHour == null && !deleted, deleted, RecordHash.hex(RecordHash.of(List.of(name, Long.toString(n)))));
    }

    private static EntitySpec spec(String table) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        cols.put("n", ColumnType.BIGINT);
        return EntitySpec.builder()
                .name(table)
                .table(table)
                .key(List.of("id"))
                .tracked(List.of("name", "n"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
    }
}
