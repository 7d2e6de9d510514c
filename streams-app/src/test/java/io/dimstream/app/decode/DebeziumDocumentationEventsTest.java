package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.model.CdcOptions;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.RecordHash;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The change events of Debezium's own documentation (PostgreSQL and MySQL connectors: create,
 * update, delete, the tombstone after a delete; with the JsonConverter's schema and without it),
 * copied under {@code src/test/resources/debezium/} (see its README for their origin), decoded by
 * {@code format: debezium-json} to the rows they stand for: the event's op and data, the typed
 * values the validator makes of them and the record hash. The event time is left to
 * {@code DebeziumJsonDecoderTest}, which covers it.
 */
public class DebeziumDocumentationEventsTest {

    /** The documentation's {@code customers} table: {@code id} int32, three strings. */
    static final EntitySpec CUSTOMERS = customers();

    private static EntitySpec customers() {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.INTEGER);
        cols.put("first_name", ColumnType.TEXT);
        cols.put("last_name", ColumnType.TEXT);
        cols.put("email", ColumnType.TEXT);
        return EntitySpec.builder()
                .name("customers")
                .table("dim_customers")
                .key(List.of("id"))
                .tracked(List.of("first_name", "last_name", "email"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
    }

    /** As {@link Decoders} builds it for the entity: its column types, Debezium's placeholder, no hints. */
    private final DebeziumJsonDecoder decoder = new DebeziumJsonDecoder(DebeziumEnvelope.DEFAULTS,
            new DebeziumValues(Map.of(), CdcOptions.DEBEZIUM_UNAVAILABLE_VALUE, CUSTOMERS.columns(), null));

    /** A decoded, validated row: op, the event's data, the typed values, the record hash (null for a delete). */
    record Row(Op op, Map<String, Object> data, List<Object> typed, String hash) {
    }

    public static byte[] resource(String name) {
        try (InputStream in = DebeziumDocumentationEventsTest.class.getResourceAsStream("/debezium/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource debezium/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Decoded decode(String key, String value) {
        return decoder.decode(resource(key), value == null ? null : resource(value), 0L, "dbserver1.inventory.customers", 0, 7L);
    }

    private Row row(String key, String value) {
        Decoded d = decode(key, value);
        assertThat(d).isInstanceOf(Decoded.Ok.class);
        Event e = ((Decoded.Ok) d).event();
        EventValidator.Result r = new EventValidator(CUSTOMERS).validate(e);
        assertThat(r.rejection()).isNull();
        return new Row(e.op(), e.data(), r.event().values(), r.event().hash() == null ? null : RecordHash.hex(r.event().hash()));
    }

    private static Row upsert(int id, String first, String last, String email) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("id", BigInteger.valueOf(id));
        data.put("first_name", first);
        data.put("last_name", last);
        data.put("email", email);
        return new Row(Op.UPSERT, data, List.of((long) id, first, last, email), RecordHash.hex(RecordHash.of(List.of(first, last, email))));
    }

    private static Row delete(Map<String, Object> before, int id) {
        return new Row(Op.DELETE, before, Arrays.asList((long) id, null, null, null), null);
    }

    @Test
    void postgresqlCreateUpdateAndDeleteWithAndWithoutTheSchema() {
        Row created = upsert(1, "Anne", "Kretchmar", "annek@noanswer.org");
        Row updated = upsert(1, "Anne Marie", "Kretchmar", "annek@noanswer.org");
        // REPLICA IDENTITY DEFAULT: the delete's before image holds the key only
        Row deleted = delete(Map.of("id", BigInteger.ONE), 1);
        List<Row> expected = List.of(created, updated, deleted);

        assertThat(List.of(row("postgresql-key.json", "postgresql-create.json"), row("postgresql-key.json", "postgresql-update.json"),
                row("postgresql-key.json", "postgresql-delete.json"))).isEqualTo(expected);
        assertThat(List.of(row("postgresql-key.schemaless.json", "postgresql-create.schemaless.json"),
                row("postgresql-key.schemaless.json", "postgresql-update.schemaless.json"),
                row("postgresql-key.schemaless.json", "postgresql-delete.schemaless.json"))).isEqualTo(expected);
    }

    @Test
    void mysqlCreateUpdateAndDeleteWithAndWithoutTheSchema() {
        Map<String, Object> before = new LinkedHashMap<>();
        before.put("id", BigInteger.valueOf(1004));
        before.put("first_name", "Anne Marie");
        before.put("last_name", "Kretchmar");
        before.put("email", "annek@noanswer.org");
        List<Row> expected = List.of(upsert(1004, "Anne", "Kretchmar", "annek@noanswer.org"),
                upsert(1004, "Anne Marie", "Kretchmar", "annek@noanswer.org"),
                delete(before, 1004)); // the binlog's before image is the whole row; a delete keeps only the key

        assertThat(List.of(row("mysql-key.json", "mysql-create.json"), row("mysql-key.json", "mysql-update.json"),
                row("mysql-key.json", "mysql-delete.json"))).isEqualTo(expected);
        assertThat(List.of(row("mysql-key.schemaless.json", "mysql-create.schemaless.json"),
                row("mysql-key.schemaless.json", "mysql-update.schemaless.json"),
                row("mysql-key.schemaless.json", "mysql-delete.schemaless.json"))).isEqualTo(expected);
    }

    @Test
    void theTombstoneAfterADeleteIsSkippedWhateverItsKey() {
        List<Decoded> out = new ArrayList<>();
        for (String key : List.of("postgresql-key.json", "postgresql-key.schemaless.json", "mysql-key.json", "mysql-key.schemaless.json")) {
            out.add(decode(key, null));
        }
        Decoded skip = Decoded.skip("Debezium tombstone (null value) after a delete");
        assertThat(out).isEqualTo(List.of(skip, skip, skip, skip));
    }
}
