package io.dimstream.db.write;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.Source;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** Entities, events and expected rows the writer tests share, as data. */
final class Fixtures {

    private static final AtomicInteger TABLES = new AtomicInteger();

    static final String YDB_EVENTS = "ydb-customers.events.jsonl";
    static final String YDB_EXPECTED = "ydb-customers.expected.jsonl";

    private Fixtures() {
    }

    /** A table name no other test in this JVM uses (each test JVM has a fresh database). */
    static String uniqueTable(String prefix) {
        return prefix + "_" + TABLES.incrementAndGet();
    }

    // ---- the YDB example: key [id], tracked [attribute1, attribute2] ----

    static EntitySpec ydb(String name, String table) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("attribute1", ColumnType.TEXT);
        cols.put("attribute2", ColumnType.TEXT);
        return EntitySpec.builder()
                .name(name)
                .table(table)
                .key(List.of("id"))
                .tracked(List.of("attribute1", "attribute2"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
    }

    /** The example's events in file order; seq = line number, source = the file's line. */
    static List<Event> ydbEvents() {
        List<Event> out = new ArrayList<>();
        List<String> lines = resourceLines(YDB_EVENTS);
        for (int i = 0; i < lines.size(); i++) {
            NativeEventJson.Parsed p = NativeEventJson.parse(lines.get(i), i + 1, Source.line(YDB_EVENTS, i + 1));
            if (p.rejection() != null) {
                throw new IllegalStateException("example line " + (i + 1) + ": " + p.rejection());
            }
            out.add(p.event());
        }
        return out;
    }

    /** The example's expected rows, parsed from its JSON lines into the compared shape. */
    static List<ExpectedRow> ydbExpected(EntitySpec spec) {
        List<ExpectedRow> rows = new ArrayList<>();
        for (String line : resourceLines(YDB_EXPECTED)) {
            JsonNode n;
            try {
                n = NativeEventJson.mapper().readTree(line);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Map<String, Object> key = new LinkedHashMap<>();
            Iterator<JsonNode> parts = n.get("key").elements();
            for (String k : spec.key()) {
                key.put(k, spec.type(k).coerce(parts.next().asText()));
            }
            Map<String, Object> attrs = new LinkedHashMap<>();
            for (String a : spec.attributes()) {
                JsonNode v = n.get("attrs").get(a);
                attrs.put(a, v == null || v.isNull() ? null : ExpectedRow.normalize(spec.type(a), spec.type(a).coerce(v.asText())));
            }
            JsonNode to = n.get("valid_to");
            rows.add(new ExpectedRow(key, attrs,
                    OffsetDateTime.parse(n.get("valid_from").asText()).toInstant(),
                    to.isNull() ? null : OffsetDateTime.parse(to.asText()).toInstant(),
                    n.get("is_current").asBoolean(), n.get("is_deleted").asBoolean(), n.get("record_hash").asText()));
        }
        return rows;
    }

    static List<String> resourceLines(String name) {
        try (InputStream in = Fixtures.class.getResourceAsStream("/examples/" + name)) {
            if (in == null) {
                throw new IllegalStateException("test resource /examples/" + name + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- a small person entity for hand-written cases: key [id], tracked [name, city], type-1 [last_login] ----

    static EntitySpec people(String name, String table, Optional<Duration> horizon) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("name", ColumnType.TEXT);
        cols.put("city", ColumnType.TEXT);
        cols.put("last_login", ColumnType.BIGINT);
        return EntitySpec.builder()
                .name(name)
                .table(table)
                .key(List.of("id"))
                .tracked(List.of("name", "city"))
                .type1(List.of("last_login"))
                .columns(cols)
                .latenessHorizon(horizon)
                .build();
    }

    /** 2025-01-01 at {@code hour}:00 UTC. */
    static Instant h(int hour) {
        return Instant.parse("2025-01-01T00:00:00Z").plus(Duration.ofHours(hour));
    }

    static Event up(long seq, int hour, String id, String name, String city, Long lastLogin) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", id);
        data.put("name", name);
        data.put("city", city);
        data.put("last_login", lastLogin);
        return Event.upsert(h(hour), data, seq, Source.kafka("people", 0, seq));
    }

    static Event del(long seq, int hour, String id) {
        Map<String, Object> key = new LinkedHashMap<>();
        key.put("id", id);
        return Event.delete(h(hour), key, seq, Source.kafka("people", 0, seq));
    }

    /** A person version row; {@code toHour} null means open; is_current follows DESIGN section 3 rule 5. */
    static ExpectedRow row(String id, String name, String city, Long lastLogin, int fromHour, Integer toHour, boolean deleted) {
        Map<String, Object> attrs = new LinkedHashMap<>();
        attrs.put("name", name);
        attrs.put("city", city);
        attrs.put("last_login", lastLogin);
        return new ExpectedRow(Map.of("id", id), attrs, h(fromHour), toHour == null ? null : h(toHour),
                toHour == null && !deleted, deleted, RecordHash.hex(RecordHash.of(Arrays.asList(name, city))));
    }

    static ExpectedRow version(String id, String name, String city, Long lastLogin, int fromHour, Integer toHour) {
        return row(id, name, city, lastLogin, fromHour, toHour, false);
    }

    static ExpectedRow deleted(String id, String name, String city, Long lastLogin, int fromHour, Integer toHour) {
        return row(id, name, city, lastLogin, fromHour, toHour, true);
    }
}
