package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.event.Source;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * Debezium's truncate ({@code op: t}: no key, no before or after) and message ({@code op: m}) events,
 * shaped as the PostgreSQL connector's documentation shows them: never the DLQ; a truncate is
 * counted and dropped with {@code on-truncate: ignore} (the default), or a
 * {@link Decoded.Truncated} at its commit time with {@code delete-all}; a message is counted and
 * dropped.
 */
class DebeziumTruncateAndMessageTest {

    private static final Instant COMMIT = Instant.parse("2019-05-28T08:58:24.863Z");
    private static final Instant CONNECTOR = Instant.parse("2019-05-28T08:58:24.961Z");
    private static final String TOPIC = "PostgreSQL_server.public.customers";
    private static final Source SRC = Source.kafka(TOPIC, 0, 12L);

    private static final String TRUNCATE = """
            {"schema":{"type":"struct","optional":false,"name":"PostgreSQL_server.public.customers.Envelope"},
             "payload":{"source":{"version":"2.7.0.Final","connector":"postgresql","name":"PostgreSQL_server","ts_ms":1559033904863,
               "ts_us":1559033904863112,"ts_ns":1559033904863112000,"snapshot":false,"db":"postgres","schema":"public",
               "table":"customers","txId":556,"lsn":46523128,"xmin":null},
              "op":"t","ts_ms":1559033904961,"ts_us":1559033904961654,"ts_ns":1559033904961654789}}""";
    private static final String MESSAGE = """
            {"schema":{"type":"struct"},
             "payload":{"source":{"version":"2.7.0.Final","connector":"postgresql","name":"PostgreSQL_server","ts_ms":1559033904863,
               "snapshot":false,"db":"postgres","schema":"","table":"","txId":556,"lsn":46523128,"xmin":null},
              "op":"m","ts_ms":1559033904961,"message":{"prefix":"foo","content":"Ymfy"}}}""";

    private static EntityConfig entity(String format, String options) {
        return DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: customer, topic: %s, format: %s, table: dim_customer, key: [customer_id], tracked: [city],
                     columns: {customer_id: text, city: text}%s}
                """.formatted(TOPIC, format, options), "test.yml", Map.of()).entity("customer");
    }

    private static Decoded decode(EntityConfig e, byte[] key, byte[] value) {
        return Decoders.forEntity(e).decode(key, value, 0L, TOPIC, 0, 12L);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aTruncateIsIgnoredByDefaultAndAppliedAtItsCommitTimeWithDeleteAll() {
        Decoded ignored = new Decoded.Skipped("Debezium truncate of the source table (op t), on-truncate: ignore", "truncate");

        assertThat(List.of(
                decode(entity("debezium-json", ""), null, utf8(TRUNCATE)),
                decode(entity("debezium-json", ", on-truncate: ignore"), null, utf8(TRUNCATE)),
                decode(entity("debezium-json", ", on-truncate: delete-all"), null, utf8(TRUNCATE)),
                decode(entity("debezium-json", ", on-truncate: delete-all, event-time: ts_ms"), null, utf8(TRUNCATE)),
                // with event-time: field NAME (delete-all is refused then) a truncate is still counted, its time unread
                decode(entity("debezium-json", ", event-time: field city"), null, utf8(TRUNCATE))))
                .isEqualTo(List.of(ignored, ignored, new Decoded.Truncated(COMMIT, SRC), new Decoded.Truncated(CONNECTOR, SRC), ignored));
    }

    @Test
    void aTruncateToApplyWithoutItsTimeIsARefusal() {
        assertThat(decode(entity("debezium-json", ", on-truncate: delete-all"), null,
                utf8("{\"op\":\"t\",\"ts_ms\":1559033904961}")))
                .isEqualTo(Decoded.error("source.ts_ms missing (event-time: source.ts_ms, the default; event-time: ts_ms takes the "
                        + "connector's processing time instead)"));
    }

    @Test
    void aMessageEventIsCountedAndDropped() {
        Decoded skipped = new Decoded.Skipped("Debezium message event (op m, prefix 'foo'): a logical decoding message, no row change",
                "message");

        // the key of a message event is a struct of its prefix
        assertThat(List.of(decode(entity("debezium-json", ""), utf8("{\"prefix\":\"foo\"}"), utf8(MESSAGE)),
                decode(entity("debezium-json", ", on-truncate: delete-all"), utf8("{\"prefix\":\"foo\"}"), utf8(MESSAGE))))
                .isEqualTo(List.of(skipped, skipped));
    }

    @Test
    void debeziumAvroTruncatesAndMessagesAlike() {
        String avro = ", value-deserializer: " + GenericBinaryDeserializer.class.getName() + ", deserializer-config: {"
                + GenericBinaryDeserializer.SCHEMA_CONFIG + ": '" + EventTimeOptionsTest.ENVELOPE + "'}";
        GenericRecord truncate = envelope("t");
        GenericRecord message = envelope("m");

        assertThat(List.of(
                decode(entity("debezium-avro", avro), null, GenericBinaryDeserializer.write(truncate)),
                decode(entity("debezium-avro", avro + ", on-truncate: delete-all"), null, GenericBinaryDeserializer.write(truncate)),
                decode(entity("debezium-avro", avro + ", on-truncate: delete-all"), null, GenericBinaryDeserializer.write(message))))
                .isEqualTo(List.of(
                        new Decoded.Skipped("Debezium truncate of the source table (op t), on-truncate: ignore", "truncate"),
                        new Decoded.Truncated(COMMIT, SRC),
                        new Decoded.Skipped("Debezium message event (op m): a logical decoding message, no row change", "message")));
    }

    /** An Avro envelope with no row image, as a truncate (or a message on the table's schema) has. */
    private static GenericRecord envelope(String op) {
        GenericRecord e = new GenericData.Record(EventTimeOptionsTest.ENVELOPE);
        GenericRecord source = new GenericData.Record(EventTimeOptionsTest.ENVELOPE.getField("source").schema());
        source.put("connector", "postgresql");
        source.put("ts_ms", COMMIT.toEpochMilli());
        source.put("txId", 556L);
        e.put("source", source);
        e.put("op", op);
        e.put("ts_ms", CONNECTOR.toEpochMilli());
        return e;
    }
}
