package io.dimstream.app.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.service.SupervisedService;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.schema.ConnectorTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.schemas.serde.AvroWireConfig;
import io.dimstream.schemas.serde.AvroWireSerializer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * One {@code connectors:} entry covers every table of a Debezium connector (JsonConverter with
 * schemas): each table present at start gets its entity and history table typed from its records'
 * schema, a table whose topic appears while the service runs gets its history without a restart by
 * anyone (the pipeline restarts inside the process), an entity declared by hand for one of the
 * topics wins, an excluded table and a table whose records carry no schema get none (the latter
 * named in the log). Every history compared whole.
 */
class ConnectorEntitiesIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    private static final Instant T0 = Instant.parse("2025-08-01T00:00:00Z");
    private static final String PREFIX = "cdcit";
    private static final List<String[]> CUSTOMER = List.of(new String[] {"customer_id", "string"}, new String[] {"email", "string"},
            new String[] {"visits", "int32"});
    private static final List<String[]> ORDER = List.of(new String[] {"order_id", "string"}, new String[] {"qty", "int32"},
            new String[] {"note", "string"});
    private static final List<String[]> ITEM = List.of(new String[] {"sku", "string"}, new String[] {"title", "string"},
            new String[] {"in_stock", "boolean"});

    @Test
    void everyTableOfTheConnectorGetsItsHistoryAndANewOneWithoutARestart(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String customers = PREFIX + ".public.customers";
        String orders = PREFIX + ".public.orders";
        String audit = PREFIX + ".public.audit_log";
        String schemaless = PREFIX + ".public.schemaless";
        String items = PREFIX + ".public.items";
        kafka.createTopics(List.of(new NewTopic(customers, 1, (short) 1), new NewTopic(orders, 1, (short) 1),
                new NewTopic(audit, 1, (short) 1), new NewTopic(schemaless, 1, (short) 1)));
        FeedFixtures.produceText(kafka.bootstrapServers(), customers, List.of(
                change("customers", CUSTOMER, "customer_id", "C1", "c", 1, "{\"customer_id\":\"C1\",\"email\":\"a@x\",\"visits\":1}"),
                change("customers", CUSTOMER, "customer_id", "C2", "c", 1, "{\"customer_id\":\"C2\",\"email\":\"b@x\",\"visits\":2}"),
                change("customers", CUSTOMER, "customer_id", "C1", "u", 2, "{\"customer_id\":\"C1\",\"email\":\"a2@x\",\"visits\":1}"),
                // a no-op update: no version
                change("customers", CUSTOMER, "customer_id", "C2", "u", 3, "{\"customer_id\":\"C2\",\"email\":\"b@x\",\"visits\":2}"),
                change("customers", CUSTOMER, "customer_id", "C2", "d", 4, null)));
        FeedFixtures.produceText(kafka.bootstrapServers(), orders, List.of(
                change("orders", ORDER, "order_id", "O1", "c", 1, "{\"order_id\":\"O1\",\"qty\":3,\"note\":\"n1\"}"),
                // only the note changes: by hand, note is type 1 there
                change("orders", ORDER, "order_id", "O1", "u", 2, "{\"order_id\":\"O1\",\"qty\":3,\"note\":\"n2\"}"),
                change("orders", ORDER, "order_id", "O1", "u", 3, "{\"order_id\":\"O1\",\"qty\":4,\"note\":\"n2\"}")));
        FeedFixtures.produceText(kafka.bootstrapServers(), audit, List.of(
                change("audit_log", ORDER, "order_id", "A1", "c", 1, "{\"order_id\":\"A1\",\"qty\":1,\"note\":\"x\"}")));
        FeedFixtures.produceText(kafka.bootstrapServers(), schemaless, List.of(new FeedFixtures.TextRecord("{\"id\":\"S1\"}",
                "{\"before\":null,\"after\":{\"id\":\"S1\"},\"source\":{\"ts_ms\":1},\"op\":\"c\",\"ts_ms\":1}")));

        DimstreamConfig config = DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                service:
                  application-id: connector-entities-it
                entities:
                  - name: orders_by_hand
                    topic: %s
                    format: debezium-json
                    table: orders_by_hand_history
                    key: [order_id]
                    tracked: [qty]
                    type1: [note]
                    columns: {order_id: text, qty: integer, note: text}
                connectors:
                  - name: shop
                    topic-prefix: %s
                    exclude: ['public\\.audit_.*']
                    table-name: 'cdc_{table}_history'
                    discovery-interval: PT1S
                """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), orders, PREFIX), "test config", Map.of());
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "connector-entities-it", 1, Duration.ofHours(1));

        try (SupervisedService service = SupervisedService.start(config, options, new SimpleMeterRegistry())) {
            DimstreamService first = service.current();
            assertThat(first.pipelines().stream().map(p -> p.entity().name() + " " + p.sourceTopic() + " " + p.entity().table()).toList())
                    .isEqualTo(List.of("orders_by_hand " + orders + " orders_by_hand_history",
                            "customers " + customers + " cdc_customers_history"));
            // the hand-declared entity runs on a Kafka Streams client of its own, the connector's tables on the connector's
            assertThat(first.pipelines().stream().map(p -> p.entity().name() + " on " + p.streamsClient()).toList())
                    .isEqualTo(List.of("orders_by_hand on orders_by_hand", "customers on shop"));
            EntitySpec customerSpec = first.pipelines().get(1).entity();
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(EntityTableReader.rows(TestPostgres.dataSource(), customerSpec)).isEqualTo(List.of(
                        customer("C1", "a@x", 1, 1, 2), customer("C1", "a2@x", 1, 2, null),
                        customer("C2", "b@x", 2, 1, 4), deleted("C2", "b@x", 2, 4)));
                assertThat(EntityTableReader.rows(TestPostgres.dataSource(), first.pipelines().get(0).entity())).isEqualTo(List.of(
                        order("O1", 3, "n2", 1, 3), order("O1", 4, "n2", 3, null)));
            });

            // CREATE TABLE items at the source while dimstream runs: the connector creates its topic and writes to it
            kafka.createTopics(List.of(new NewTopic(items, 1, (short) 1)));
            FeedFixtures.produceText(kafka.bootstrapServers(), items, List.of(
                    change("items", ITEM, "sku", "I1", "r", 5, "{\"sku\":\"I1\",\"title\":\"Lamp\",\"in_stock\":true}"),
                    change("items", ITEM, "sku", "I1", "u", 6, "{\"sku\":\"I1\",\"title\":\"Lamp\",\"in_stock\":false}")));
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(service.current()).isNotSameAs(first);
                assertThat(service.current().pipelines().stream().map(p -> p.entity().name()).toList())
                        .isEqualTo(List.of("orders_by_hand", "customers", "items"));
                assertThat(service.current().streamsStates().keySet()).containsExactly("orders_by_hand", "shop");
                EntitySpec itemSpec = service.current().pipelines().get(2).entity();
                assertThat(itemSpec.table()).isEqualTo("cdc_items_history");
                assertThat(EntityTableReader.rows(TestPostgres.dataSource(), itemSpec)).isEqualTo(List.of(
                        item("I1", "Lamp", true, 5, 6), item("I1", "Lamp", false, 6, null)));
            });
            // the restarted pipeline goes on with the tables found before
            FeedFixtures.produceText(kafka.bootstrapServers(), customers, List.of(
                    change("customers", CUSTOMER, "customer_id", "C1", "u", 7, "{\"customer_id\":\"C1\",\"email\":\"a3@x\",\"visits\":1}")));
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(TestPostgres.dataSource(), customerSpec)).isEqualTo(List.of(
                            customer("C1", "a@x", 1, 1, 2), customer("C1", "a2@x", 1, 2, 7), customer("C1", "a3@x", 1, 7, null),
                            customer("C2", "b@x", 2, 1, 4), deleted("C2", "b@x", 2, 4))));
        }
        List<String> catalog = new ArrayList<>();
        for (ConnectorTables.Found f : ConnectorTables.all(TestPostgres.dataSource())) {
            if (f.topic().startsWith(PREFIX + ".")) {
                catalog.add(f.connector() + " " + f.topic() + " " + f.schema() + "." + f.table() + " " + f.key() + " " + f.columns());
            }
        }
        // the hand-declared orders, the excluded audit_log and the schemaless table are not in the catalog
        assertThat(catalog).isEqualTo(List.of(
                "shop " + customers + " public.customers [customer_id] {customer_id=text, email=text, visits=integer}",
                "shop " + items + " public.items [sku] {sku=text, title=text, in_stock=boolean}"));
    }

    private static final Schema AVRO_ROW = new Schema.Parser().parse("""
            {"type": "record", "name": "Value", "namespace": "cdcavro.sales.invoices", "fields": [
              {"name": "invoice_id", "type": "long"},
              {"name": "amount", "type": ["null", {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}],
               "default": null},
              {"name": "paid", "type": ["null", "boolean"], "default": null}]}""");
    private static final Schema AVRO_ENVELOPE = new Schema.Parser().addTypes(Map.of("cdcavro.sales.invoices.Value", AVRO_ROW)).parse("""
            {"type": "record", "name": "Envelope", "namespace": "cdcavro.sales.invoices", "fields": [
              {"name": "before", "type": ["null", "cdcavro.sales.invoices.Value"], "default": null},
              {"name": "after", "type": ["null", "cdcavro.sales.invoices.Value"], "default": null},
              {"name": "source", "type": {"type": "record", "name": "Source", "fields": [{"name": "ts_ms", "type": "long"}]}},
              {"name": "op", "type": "string"},
              {"name": "ts_ms", "type": ["null", "long"], "default": null}]}""");
    private static final Schema AVRO_KEY = new Schema.Parser().parse("""
            {"type": "record", "name": "Key", "namespace": "cdcavro.sales.invoices", "fields": [{"name": "invoice_id", "type": "long"}]}""");

    /**
     * A {@code debezium-avro} connector: the table is typed from the writer schema the registry
     * holds for its records (key and value in the Confluent wire format), exactly as a JSON one.
     */
    @Test
    void aDebeziumAvroConnectorsTableIsTypedFromTheRegistry(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.get();
        String topic = "cdcavro.sales.invoices";
        String registry = "mock://connector-entities-it-avro";
        kafka.createTopics(List.of(new NewTopic(topic, 1, (short) 1)));
        Map<String, Object> serde = Map.of(AvroWireConfig.SCHEMA_REGISTRY_URL, registry);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (AvroWireSerializer keys = new AvroWireSerializer(); AvroWireSerializer values = new AvroWireSerializer()) {
            keys.configure(serde, true);
            values.configure(serde, false);
            records.add(invoice(keys, values, topic, 7L, "c", null, new java.math.BigDecimal("12.50"), false, 1));
            records.add(invoice(keys, values, topic, 7L, "u", new java.math.BigDecimal("12.50"), new java.math.BigDecimal("12.50"),
                    true, 2));
        }
        FeedFixtures.send(kafka.bootstrapServers(), records, Map.of());
        DimstreamConfig config = DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                service:
                  application-id: connector-entities-avro-it
                connectors:
                  - name: sales
                    topic-prefix: cdcavro
                    format: debezium-avro
                    entity-name: '{schema}_{table}'
                    table-name: 'cdcavro_{table}_history'
                    entity: {deserializer-config: {schema.registry.url: "%s"}}
                """.formatted(kafka.bootstrapServers(), TestPostgres.jdbcUrl(), registry), "test config", Map.of());
        ServiceOptions options = new ServiceOptions(dir.resolve("data"), "connector-entities-avro-it", 1, Duration.ofHours(1));
        try (SupervisedService service = SupervisedService.start(config, options, new SimpleMeterRegistry())) {
            EntitySpec spec = service.current().pipelines().get(0).entity();
            assertThat(spec.name() + " " + spec.table() + " " + spec.key() + " " + spec.columns()).isEqualTo(
                    "sales_invoices cdcavro_invoices_history [invoice_id] {invoice_id=BIGINT, amount=NUMERIC, paid=BOOLEAN}");
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).untilAsserted(() ->
                    assertThat(EntityTableReader.rows(TestPostgres.dataSource(), spec)).isEqualTo(List.of(
                            // a numeric keeps no trailing zeros: 12.50 is stored, hashed and read as 12.5
                            version(Map.of("invoice_id", 7L), attrs("amount", new java.math.BigDecimal("12.5"), "paid", false), 1, 2,
                                    false),
                            version(Map.of("invoice_id", 7L), attrs("amount", new java.math.BigDecimal("12.5"), "paid", true), 2, null,
                                    false))));
        }
    }

    private static ProducerRecord<byte[], byte[]> invoice(AvroWireSerializer keys, AvroWireSerializer values, String topic, long id,
                                                          String op, java.math.BigDecimal before, java.math.BigDecimal amount,
                                                          boolean paid, int hour) {
        GenericRecord key = new GenericData.Record(AVRO_KEY);
        key.put("invoice_id", id);
        GenericRecord after = new GenericData.Record(AVRO_ROW);
        after.put("invoice_id", id);
        after.put("amount", amount);
        after.put("paid", paid);
        GenericRecord e = new GenericData.Record(AVRO_ENVELOPE);
        if (before != null) {
            GenericRecord b = new GenericData.Record(AVRO_ROW);
            b.put("invoice_id", id);
            b.put("amount", before);
            b.put("paid", !paid);
            e.put("before", b);
        }
        e.put("after", after);
        GenericRecord source = new GenericData.Record(AVRO_ENVELOPE.getField("source").schema());
        source.put("ts_ms", hour(hour).toEpochMilli());
        e.put("source", source);
        e.put("op", op);
        e.put("ts_ms", hour(hour).toEpochMilli());
        return new ProducerRecord<>(topic, keys.serialize(topic, key), values.serialize(topic, e));
    }

    private static ExpectedRow customer(String id, String email, int visits, int from, Integer to) {
        return version(Map.of("customer_id", id), attrs("email", email, "visits", (long) visits), from, to, false);
    }

    private static ExpectedRow deleted(String id, String email, int visits, int at) {
        return version(Map.of("customer_id", id), attrs("email", email, "visits", (long) visits), at, null, true);
    }

    private static ExpectedRow order(String id, int qty, String note, int from, Integer to) {
        Map<String, Object> attrs = attrs("qty", (long) qty, "note", note);
        return new ExpectedRow(Map.of("order_id", id), attrs, hour(from), to == null ? null : hour(to), to == null, false,
                RecordHash.hex(RecordHash.of(List.of(String.valueOf(qty)))));
    }

    private static ExpectedRow item(String sku, String title, boolean inStock, int from, Integer to) {
        return version(Map.of("sku", sku), attrs("title", title, "in_stock", inStock), from, to, false);
    }

    private static Map<String, Object> attrs(String n1, Object v1, String n2, Object v2) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(n1, v1);
        m.put(n2, v2);
        return m;
    }

    /** A version of a {@code tracked: "*"} entity: every attribute tracked, in order. */
    private static ExpectedRow version(Map<String, Object> key, Map<String, Object> attrs, int from, Integer to, boolean deleted) {
        List<String> canonical = attrs.values().stream().map(String::valueOf).toList();
        boolean current = to == null && !deleted;
        return new ExpectedRow(key, attrs, hour(from), to == null ? null : hour(to), current, deleted,
                RecordHash.hex(RecordHash.of(Arrays.asList(canonical.toArray()))));
    }

    private static Instant hour(int h) {
        return T0.plus(Duration.ofHours(h));
    }

    /**
     * A Debezium change event as JsonConverter writes it with {@code schemas.enable=true} for the key
     * and the value; {@code after} null for a delete (its {@code before} the last row is not needed).
     */
    static FeedFixtures.TextRecord change(String table, List<String[]> columns, String keyField, String id, String op, int hour,
                                          String after) {
        long ms = hour(hour).toEpochMilli();
        String name = PREFIX + ".public." + table;
        StringBuilder row = new StringBuilder("{\"type\":\"struct\",\"optional\":true,\"name\":\"" + name + ".Value\",\"fields\":[");
        for (int i = 0; i < columns.size(); i++) {
            row.append(i == 0 ? "" : ",").append("{\"type\":\"").append(columns.get(i)[1]).append("\",\"optional\":")
                    .append(i > 0).append(",\"field\":\"").append(columns.get(i)[0]).append("\"}");
        }
        row.append("]");
        String schema = "{\"type\":\"struct\",\"optional\":false,\"name\":\"" + name + ".Envelope\",\"fields\":["
                + row + ",\"field\":\"before\"}," + row + ",\"field\":\"after\"},"
                + "{\"type\":\"struct\",\"optional\":false,\"field\":\"source\",\"fields\":[{\"type\":\"int64\",\"optional\":false,"
                + "\"field\":\"ts_ms\"}]},{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},"
                + "{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"}]}";
        String before = "d".equals(op) ? "{\"" + keyField + "\":\"" + id + "\"}" : "null";
        String payload = "{\"before\":" + before + ",\"after\":" + (after == null ? "null" : after) + ",\"source\":{\"connector\":"
                + "\"postgresql\",\"ts_ms\":" + ms + ",\"db\":\"shop\",\"schema\":\"public\",\"table\":\"" + table + "\"},\"op\":\""
                + op + "\",\"ts_ms\":" + ms + "}";
        String key = "{\"schema\":{\"type\":\"struct\",\"optional\":false,\"name\":\"" + name + ".Key\",\"fields\":[{\"type\":"
                + "\"string\",\"optional\":false,\"field\":\"" + keyField + "\"}]},\"payload\":{\"" + keyField + "\":\"" + id + "\"}}";
        return new FeedFixtures.TextRecord(key, "{\"schema\":" + schema + ",\"payload\":" + payload + "}");
    }
}
