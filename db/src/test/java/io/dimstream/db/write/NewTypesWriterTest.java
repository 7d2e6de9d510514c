package io.dimstream.db.write;

import static io.dimstream.db.write.Fixtures.h;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.Source;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.VersionRow;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.snapshot.SnapshotSlices;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Each new column type through the whole writer: as the key, a tracked and a type-1 column of one
 * entity, the table created by {@link EntityTables}, values COPYed, compared by the writer's SQL
 * (a re-assertion spelled otherwise is no change, a type-1 change overwrites in place, a late event
 * splits a version), and read back whole: the table's rows (JDBC), the read side's
 * ({@link HistoryQueries}, the admin UI's and CLI's), the snapshot feeds' keys ({@link SnapshotSlices})
 * and a quarantined event's copy in {@code dimstream.quarantine}, validated again.
 *
 * <p>Every test applies the same story to its type, with the values of that type:
 * <pre>
 * batch 1: h1 K1 v=a w=p;  h1 K2 v=b w=NULL
 * batch 2: h3 K1 v=a' w=q (a' is a spelled otherwise: no change; w overwritten);
 *          h2 K1 v=c w=p (late: splits [h1, h3));  h2 delete K2
 * batch 3: h0 K1 (beyond the one-hour horizon: quarantined)
 * </pre>
 */
class NewTypesWriterTest {

    private final DataSource ds = TestPostgres.dataSource();

    /** The values of one type: keys K1, K2; attribute values a, a' (a spelled otherwise), b, c, p, q. */
    private record Values(Object k1, Object k2, Object a, Object aOtherwise, Object b, Object c, Object p, Object q) {
    }

    @Test
    void timestampRoundTrip() throws SQLException {
        roundTrip(ColumnType.TIMESTAMP, new Values(
                "2018-06-20T15:13:16.945104", LocalDateTime.of(1, 1, 1, 0, 0),
                "9999-12-31T23:59:59.999999", LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_999),
                "0001-01-01 00:00:00", Instant.parse("2018-06-20T15:13:16Z"),
                "2000-02-29T12:00:00.5", "2000-02-29T12:00:00.500001"));
    }

    @Test
    void timeRoundTrip() throws SQLException {
        roundTrip(ColumnType.TIME, new Values(
                "00:00:00", LocalTime.of(23, 59, 59, 999_999_000),
                "13:13:16.945104", LocalTime.of(13, 13, 16, 945_104_999),
                "00:00:00.000001", "12:00",
                "01:02:03", "01:02:03.4"));
    }

    @Test
    void jsonbRoundTrip() throws SQLException {
        Map<String, Object> aAsMap = new LinkedHashMap<>();
        aAsMap.put("a", "\u00e9\n\\ \"q\"\t");
        aAsMap.put("b", Arrays.asList(1L, new java.math.BigDecimal("2.50"), null, Map.of("deep", List.of(true))));
        roundTrip(ColumnType.JSONB, new Values(
                "{\"id\": 1, \"region\": \"EU\"}", "\"a string is a JSON value too\"",
                "{\"b\": [1, 2.50, null, {\"deep\": [true]}], \"a\": \"\\u00e9\\n\\\\ \\\"q\\\"\\t\"}", aAsMap,
                "[]", "{\"x\": null, \"\": 0}",
                "1", "\"tab\\tand \\\\x00ff\""));
    }

    @Test
    void byteaRoundTrip() throws SQLException {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        roundTrip(ColumnType.BYTEA, new Values(
                "\\x00ff", Base64.getEncoder().encodeToString(all),
                "AP8Q", "\\x00FF10",
                "", all,
                new byte[] {'\\'}, "\\x0a0d095c4e"));
    }

    private void roundTrip(ColumnType type, Values x) throws SQLException {
        String table = Fixtures.uniqueTable("typed_" + type.name().toLowerCase(java.util.Locale.ROOT));
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("k", type);
        cols.put("v", type);
        cols.put("w", type);
        EntitySpec spec = EntitySpec.builder()
                .name(table)
                .table(table)
                .key(List.of("k"))
                .tracked(List.of("v"))
                .type1(List.of("w"))
                .columns(cols)
                .latenessHorizon(Optional.of(Duration.ofHours(1)))
                .build();
        EntityTables.ensure(ds, spec);
        Scd2Writer writer = new Scd2Writer(ds);

        ApplyResult first = writer.apply(spec, List.of(up(1, 1, x.k1(), x.a(), x.p()), up(2, 1, x.k2(), x.b(), null)));
        ApplyResult second = writer.apply(spec, List.of(up(3, 3, x.k1(), x.aOtherwise(), x.q()), up(4, 2, x.k1(), x.c(), x.p()),
                del(5, 2, x.k2())));
        ApplyResult third = writer.apply(spec, List.of(up(6, 0, x.k1(), x.c(), x.q())));

        assertThat(List.of(first.received(), first.rejected(), second.received(), second.rejected(), third.quarantined(), third.rejected()))
                .isEqualTo(List.of(2, List.of(), 3, List.of(), 1, List.of()));
        String k1 = text(type, x.k1());
        String k2 = text(type, x.k2());
        List<List<String>> expected = sorted(type, List.of(
                row(k1, text(type, x.a()), text(type, x.p()), 1, 2, false),
                row(k1, text(type, x.c()), text(type, x.p()), 2, 3, false),
                row(k1, text(type, x.a()), text(type, x.q()), 3, null, false),
                row(k2, text(type, x.b()), null, 1, 2, false),
                row(k2, text(type, x.b()), null, 2, null, true)));

        // the table, read with plain JDBC
        List<List<String>> stored = new ArrayList<>();
        for (ExpectedRow r : EntityTableReader.rows(ds, spec)) {
            stored.add(row(text(type, r.key().get("k")), text(type, r.attrs().get("v")), text(type, r.attrs().get("w")),
                    r.validFrom(), r.validTo(), r.deleted(), r.current(), r.hashHex()));
        }
        assertThat(sorted(type, stored)).isEqualTo(expected);

        // the read side (admin UI, CLI): typed values as the writer typed them
        HistoryQueries reads = new HistoryQueries(ds);
        List<List<String>> history = new ArrayList<>();
        for (Object k : List.of(type.coerce(x.k1()), type.coerce(x.k2()))) {
            for (VersionRow r : reads.history(spec, List.of(k))) {
                history.add(row(text(type, r.key().get("k")), text(type, r.attributes().get("v")), text(type, r.attributes().get("w")),
                        r.validFrom(), r.validTo(), r.deleted(), r.current(), r.recordHash()));
                assertThat(r.key().get("k").getClass()).isEqualTo(type.coerce(x.k1()).getClass());
            }
        }
        assertThat(sorted(type, history)).isEqualTo(expected);

        // the snapshot feeds' keys: live at h4, no event there
        try (Connection c = ds.getConnection()) {
            List<List<Object>> live = SnapshotSlices.liveWithoutEventAt(c, spec, h(4));
            assertThat(live.stream().map(key -> text(type, key.get(0))).toList()).isEqualTo(List.of(k1));
        }

        // the quarantined event's copy reads back to the same typed values
        List<Object> quarantined = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT event::text FROM dimstream.quarantine WHERE entity = ?")) {
            p.setString(1, table);
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    NativeEventJson.Parsed parsed = NativeEventJson.parse(rs.getString(1), 6, Source.kafka("typed", 0, 6));
                    EventValidator.Result result = new EventValidator(spec).validate(parsed.event());
                    result.event().values().forEach(v -> quarantined.add(text(type, v)));
                }
            }
        }
        assertThat(quarantined).isEqualTo(List.of(k1, text(type, x.c()), text(type, x.q())));
    }

    /** The canonical text of a value of {@code type}, as given or as read; null stays null. */
    private static String text(ColumnType type, Object v) {
        return v == null ? null : type.canonical(type.coerce(v));
    }

    private static List<String> row(String k, String v, String w, int fromHour, Integer toHour, boolean deleted) {
        return row(k, v, w, h(fromHour), toHour == null ? null : h(toHour), deleted, toHour == null && !deleted,
                RecordHash.hex(RecordHash.of(Arrays.asList(v))));
    }

    private static List<String> row(String k, String v, String w, Instant from, Instant to, boolean deleted, boolean current,
                                    String hash) {
        return Arrays.asList(k, v, w, from.toString(), String.valueOf(to), "deleted=" + deleted, "current=" + current, hash);
    }

    /** By key (its typed value's order, as the table's primary key orders it), then valid_from. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<List<String>> sorted(ColumnType type, List<List<String>> rows) {
        List<List<String>> out = new ArrayList<>(rows);
        out.sort((a, b) -> {
            Object x = type.coerce(a.get(0));
            Object y = type.coerce(b.get(0));
            int byKey = x instanceof byte[] xb ? java.util.Arrays.compareUnsigned(xb, (byte[]) y)
                    : type == ColumnType.JSONB ? a.get(0).compareTo(b.get(0)) : ((Comparable) x).compareTo(y);
            return byKey != 0 ? byKey : a.get(3).compareTo(b.get(3));
        });
        return out;
    }

    private static Event up(long seq, int hour, Object k, Object v, Object w) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("k", k);
        data.put("v", v);
        data.put("w", w);
        return Event.upsert(h(hour), data, seq, Source.kafka("typed", 0, seq));
    }

    private static Event del(long seq, int hour, Object k) {
        Map<String, Object> key = new LinkedHashMap<>();
        key.put("k", k);
        return Event.delete(h(hour), key, seq, Source.kafka("typed", 0, seq));
    }
}
