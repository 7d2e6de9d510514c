package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.model.SeedJsonOptions;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SeedJsonDecoderTest {

    private static final Source SRC = Source.kafka("ydb.changes", 0, 5L);

    private static Decoded decode(SeedJsonOptions options, String value) {
        return new SeedJsonDecoder(options).decode(null, value == null ? null : value.getBytes(StandardCharsets.UTF_8),
                0L, "ydb.changes", 0, 5L);
    }

    private static Map<String, Object> row(String id, String a1, String a2) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("attribute1", a1);
        m.put("attribute2", a2);
        return m;
    }

    @Test
    void defaultOperationValuesMapCreateAndUpdateToUpsertAndDeleteToDelete() {
        String create = "{\"id\":\"CUSTOMER_1001\",\"attribute1\":\"John Doe\",\"attribute2\":\"Los Angeles\","
                + "\"change_time\":\"2025-08-22T17:00:00Z\",\"operation\":\"CREATE\"}";
        String update = "{\"id\":\"CUSTOMER_1001\",\"attribute1\":\"John Doe\",\"attribute2\":\"San Francisco\","
                + "\"change_time\":\"2025-08-22T19:00:00.000000Z\",\"operation\":\"update\"}";
        String delete = "{\"id\":\"CUSTOMER_1002\",\"attribute1\":null,\"attribute2\":null,"
                + "\"change_time\":1755896400000,\"operation\":\"DELETE\"}";

        assertThat(List.of(decode(SeedJsonOptions.DEFAULTS, create), decode(SeedJsonOptions.DEFAULTS, update),
                decode(SeedJsonOptions.DEFAULTS, delete)))
                .isEqualTo(List.of(
                        Decoded.ok(Event.upsert(Instant.parse("2025-08-22T17:00:00Z"), row("CUSTOMER_1001", "John Doe", "Los Angeles"), 5L, SRC)),
                        Decoded.ok(Event.upsert(Instant.parse("2025-08-22T19:00:00Z"), row("CUSTOMER_1001", "John Doe", "San Francisco"), 5L, SRC)),
                        Decoded.ok(Event.delete(Instant.parse("2025-08-22T21:00:00Z"), row("CUSTOMER_1002", null, null), 5L, SRC))));
    }

    @Test
    void customFieldNamesAndOperationValues() {
        SeedJsonOptions options = new SeedJsonOptions("op_type", "changed_at", List.of("I", "U"), List.of("D"));

        assertThat(List.of(
                decode(options, "{\"id\":\"C1\",\"attribute1\":\"x\",\"attribute2\":\"y\",\"op_type\":\"U\",\"changed_at\":\"2025-08-22T17:00:00+02:00\"}"),
                decode(options, "{\"id\":\"C1\",\"op_type\":\"d\",\"changed_at\":\"2025-08-22T18:00:00Z\"}"),
                decode(options, "{\"id\":\"C1\",\"op_type\":\"UPDATE\",\"changed_at\":\"2025-08-22T18:00:00Z\"}")))
                .isEqualTo(List.of(
                        Decoded.ok(Event.upsert(Instant.parse("2025-08-22T15:00:00Z"), row("C1", "x", "y"), 5L, SRC)),
                        Decoded.ok(Event.delete(Instant.parse("2025-08-22T18:00:00Z"), Map.of("id", "C1"), 5L, SRC)),
                        Decoded.error("field 'op_type' has unknown value \"UPDATE\" (upsert: I, U; delete: D)")));
    }

    @Test
    void missingOrBadFieldsAreErrorsNamingTheField() {
        SeedJsonOptions d = SeedJsonOptions.DEFAULTS;

        assertThat(List.of(
                decode(d, "{\"id\":\"C1\",\"change_time\":\"2025-08-22T17:00:00Z\"}"),
                decode(d, "{\"id\":\"C1\",\"operation\":\"CREATE\"}"),
                decode(d, "{\"id\":\"C1\",\"operation\":\"CREATE\",\"change_time\":\"22.08.2025\"}"),
                decode(d, "{\"id\":\"C1\",\"operation\":7,\"change_time\":\"2025-08-22T17:00:00Z\"}"),
                decode(d, "[1,2]"),
                decode(d, null)))
                .isEqualTo(List.of(
                        Decoded.error("field 'operation' is missing"),
                        Decoded.error("field 'change_time' missing"),
                        Decoded.error("field 'change_time' is not an ISO-8601 instant with offset: \"22.08.2025\""),
                        Decoded.error("field 'operation' has unknown value 7 (upsert: CREATE, UPDATE; delete: DELETE)"),
                        Decoded.error("not a JSON object"),
                        Decoded.error("null value (tombstone): a seed-json change row needs its 'operation' and 'change_time' fields")));
    }
}
