package io.dimstream.db.erase;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.ReplayKeys;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which stored Kafka records (key and value bytes, as they came) an erasure takes as the key's. */
class RecordMatchTest {

    private static EntitySpec entity(List<String> key) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        for (String k : key) {
            cols.put(k, k.equals("id") ? ColumnType.BIGINT : ColumnType.TEXT);
        }
        cols.put("email", ColumnType.TEXT);
        return EntitySpec.builder().name("m").table("m").key(key).tracked(List.of("email")).type1(List.of()).columns(cols)
                .latenessHorizon(Optional.empty()).build();
    }

    private static byte[] b(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aOneColumnKeyInPlainTextJsonDebeziumOrBinaryRecords() {
        RecordMatch c1 = new RecordMatch(entity(List.of("customer_id")), new ReplayKeys(List.of(List.of("C1")), null));
        String debeziumKey = "{\"schema\": {\"type\": \"struct\"}, \"payload\": {\"customer_id\": \"C1\"}}";
        String debeziumValue = "{\"before\": null, \"after\": {\"customer_id\": \"%s\", \"email\": \"a@x\"}, \"op\": \"c\"}";
        assertThat(List.of(
                c1.matches(b("C1"), null),
                c1.matches(b("\"C1\""), null),
                c1.matches(b(debeziumKey), b("not json")),
                c1.matches(null, b(debeziumValue.formatted("C1"))),
                c1.matches(null, b("{\"op\": \"upsert\", \"data\": {\"customer_id\": \"C1\"}}")),
                c1.matches(new byte[] {4, 'C', '1'}, new byte[] {0, (byte) 0xff}),
                c1.matches(b("C10"), null),
                c1.matches(b("\"C10\""), null),
                c1.matches(null, b(debeziumValue.formatted("C10"))),
                c1.matches(null, b("{\"customer_id\": \"C2\", \"email\": \"C1\"}")),
                c1.matches(null, null),
                c1.matches(new byte[] {6, 'C', '1', '0'}, null),
                c1.matches(null, b("C1;a@x"))))
                .as("C1 as text, a JSON string, in a Debezium key or value, a native event, Avro bytes; not C10, C2 nor "
                        + "C1 in another field; binary bytes holding C10 are taken (the documented over-match), and a value of text that is not JSON holding C1")
                .isEqualTo(List.of(true, true, true, true, true, true, false, false, false, false, false, true, true));
    }

    @Test
    void aKeyOfSeveralColumnsIsAnObjectHoldingEveryColumnReadAsItsType() {
        RecordMatch eu7 = new RecordMatch(entity(List.of("region", "id")), new ReplayKeys(List.of(List.of("eu", "7")), null));
        assertThat(List.of(
                eu7.matches(b("{\"region\": \"eu\", \"id\": 7}"), null),
                eu7.matches(null, b("{\"after\": {\"id\": \"7\", \"region\": \"eu\", \"email\": \"x\"}}")),
                eu7.matches(b("{\"region\": \"eu\", \"id\": 8}"), null),
                eu7.matches(b("{\"region\": \"eu\"}"), b("{\"id\": 7}")),
                eu7.matches(b("eu"), null)))
                .isEqualTo(List.of(true, true, false, false, false));
    }
}
