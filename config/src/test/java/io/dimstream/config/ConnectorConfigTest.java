package io.dimstream.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.dimstream.config.model.ConnectorConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.schema.ConnectorTables;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code connectors:}: read and refused naming the field; each found table's entity is exactly the
 * entity a user would declare by hand for it; the hand-declared one wins; taken names are left out
 * with the reason.
 */
class ConnectorConfigTest {

    private static final String HEAD = """
            kafka: {bootstrap-servers: "broker:9092"}
            postgres: {url: "jdbc:postgresql://db/x", user: u, password: p}
            """;

    private static final String SHOP = HEAD + """
            connectors:
              - name: shop
                topic-prefix: shop
                include: ['public\\..*']
                exclude: ['public\\.audit_.*']
                entity: {except: [updated_at], lateness-horizon: P7D}
                tables:
                  - {match: 'public\\.orders', type1: [note]}
                  - {match: 'public\\.order.*', lateness-horizon: P1D}
            """;

    private static DimstreamConfig parse(String yaml) {
        return DimstreamConfig.parse(yaml, "test", Map.of());
    }

    private static ConnectorTables.Found found(String topic, String table, List<String> key, Map<String, String> columns) {
        return new ConnectorTables.Found("shop", topic, "public", table, key, columns);
    }

    private static Map<String, String> columns(String... nameType) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameType.length; i += 2) {
            m.put(nameType[i], nameType[i + 1]);
        }
        return m;
    }

    @Test
    void aConnectorCoversItsTopicsAsDebeziumNamesThem() {
        ConnectorConfig c = parse(SHOP).connectors().get(0);
        assertThat(c.tableOf("shop.public.customers")).contains(new ConnectorConfig.SourceTable("public", "customers"));
        assertThat(c.tableOf("shop.public.audit_log")).isEmpty();
        assertThat(c.tableOf("shop.inventory.items")).isEmpty();
        assertThat(c.tableOf("shopx.public.customers")).isEmpty();
        assertThat(c.tableOf("shop.public")).isEmpty();
        ConnectorConfig byPattern = parse(HEAD + """
                connectors: [{name: s, topic-pattern: 'cdc-(?<schema>\\w+)-(?<table>\\w+)'}]
                """).connectors().get(0);
        assertThat(byPattern.tableOf("cdc-sales-invoices")).contains(new ConnectorConfig.SourceTable("sales", "invoices"));
    }

    @Test
    void aFoundTablesEntityIsTheEntityAUserWouldDeclareByHand() {
        DimstreamConfig config = parse(SHOP);
        ConnectorConfig c = config.connectors().get(0);
        EntityConfig orders = ConnectorEntities.entity(c, new ConnectorConfig.SourceTable("public", "orders"),
                found("shop.public.orders", "orders", List.of("order_id", "line"),
                        columns("order_id", "bigint", "line", "integer", "qty", "integer", "note", "text", "placed", "date")));
        EntityConfig byHand = parse(HEAD + """
                entities:
                  - name: orders
                    topic: shop.public.orders
                    table: orders_history
                    format: debezium-json
                    key: [order_id, line]
                    tracked: "*"
                    type1: [note]
                    except: [updated_at]
                    lateness-horizon: P1D
                    streams-client: shop
                    columns: {order_id: bigint, line: integer, qty: integer, note: text, placed: date}
                """).entity("orders");
        assertThat(orders).isEqualTo(byHand);
    }

    @Test
    void theHandDeclaredEntityWinsAndTakenNamesAreLeftOutWithTheReason() {
        DimstreamConfig config = parse(SHOP + """
                entities:
                  - name: customers
                    topic: crm.customers
                    table: crm_customers
                    key: [id]
                    tracked: [email]
                    columns: {id: text, email: text}
                  - name: orders_by_hand
                    topic: shop.public.orders
                    table: orders_by_hand
                    format: debezium-json
                    key: [order_id]
                    tracked: [qty]
                    columns: {order_id: bigint, qty: integer}
                """);
        ConnectorEntities.Resolved r = ConnectorEntities.resolve(config, List.of(
                found("shop.public.orders", "orders", List.of("order_id"), columns("order_id", "bigint", "qty", "integer")),
                found("shop.public.customers", "customers", List.of("id"), columns("id", "integer", "email", "text")),
                found("shop.public.items", "items", List.of("sku"), columns("sku", "text", "title", "text")),
                found("shop.public.stamped", "stamped", List.of("id"), columns("id", "integer", "v", "text", "updated_at", "text")),
                found("shop.public.bad", "bad", List.of("id"), columns("id", "integer", "updated_at", "text"))));
        assertThat(r.config().entities().stream().map(e -> e.name() + " " + e.topic() + " " + e.table()).toList()).isEqualTo(List.of(
                "customers crm.customers crm_customers", "orders_by_hand shop.public.orders orders_by_hand",
                "items shop.public.items items_history", "stamped shop.public.stamped stamped_history"));
        // except: drops the field from a found table's columns, as it drops it from its records
        assertThat(r.config().entity("stamped").columns()).isEqualTo(Map.of("id", io.dimstream.db.entity.ColumnType.INTEGER, "v",
                io.dimstream.db.entity.ColumnType.TEXT));
        assertThat(r.leftOut()).isEqualTo(Map.of(
                "shop.public.orders", "declared by hand as entity orders_by_hand",
                "shop.public.customers", "its entity name \"customers\" is already the entity declared by hand (set entity-name: of "
                        + "connector shop, e.g. '{schema}_{table}')",
                "shop.public.bad", "connector shop, table public.bad (topic shop.public.bad): entity.tracked: \"*\" leaves no "
                        + "column to track"));
        // a table another config's connector found (a deployment sharing the database) is not this config's
        ConnectorEntities.Resolved withOthers = ConnectorEntities.resolve(config, List.of(new ConnectorTables.Found("other",
                "shop.public.items", "public", "items", List.of("sku"), columns("sku", "text", "title", "text"))));
        assertThat(withOthers.config().entities()).isEqualTo(config.entities());
        assertThat(withOthers.leftOut()).isEmpty();
        // a second connector of this config covering a topic the first found: left out, naming the first
        DimstreamConfig twoConnectors = parse(SHOP.replace("connectors:\n", "connectors:\n  - {name: crm, topic-prefix: shop, entity-name: 'crm_{table}', table-name: 'crm_{table}'}\n"));
        ConnectorEntities.Resolved twice = ConnectorEntities.resolve(twoConnectors, List.of(
                new ConnectorTables.Found("crm", "shop.public.items", "public", "items", List.of("sku"), columns("sku", "text", "title", "text")),
                found("shop.public.items", "items", List.of("sku"), columns("sku", "text", "title", "text"))));
        assertThat(twice.config().entities().stream().map(e -> e.name() + " " + e.topic()).toList())
                .isEqualTo(List.of("crm_items shop.public.items"));
        assertThat(twice.leftOut()).isEqualTo(Map.of("shop.public.items", "already read by entity crm_items of connector crm"));
        // resolving again changes nothing
        ConnectorEntities.Resolved again = ConnectorEntities.resolve(r.config(), List.of(
                found("shop.public.items", "items", List.of("sku"), columns("sku", "text", "title", "text"))));
        assertThat(again.config()).isEqualTo(r.config());
        assertThat(again.leftOut()).isEmpty();
    }

    @Test
    void aWrongConnectorIsRefusedNamingEachField() {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> parse(HEAD + """
                connectors:
                  - name: shop
                    include: ['(']
                    format: json
                    table-name: history
                    entity: {key: [id], lateness-horizont: P1D}
                    tables: [{type1: [x]}]
                  - {name: shop, topic-prefix: a, topic-pattern: b}
                entities: [{name: e, topic: t, table: t, key: [id], tracked: [v], columns: {id: text, v: text}}]
                """));
        assertThat(e.problems()).isEqualTo(List.of(
                "connectors[0]: give one of topic-prefix (Debezium's topic.prefix) or topic-pattern",
                "connectors[0].include[0]: \"(\" is not a regular expression: Unclosed group",
                "connectors[0].format: \"json\": a connector's records are debezium-json or debezium-avro",
                "connectors[0].table-name: \"history\" must contain {table} (each table needs a name of its own)",
                "connectors[0].entity.key: the connector decides it for each table (columns, format, key, mode, name, "
                        + "snapshot-time-field, table, topic); declare an entity by hand to choose it",
                "connectors[0].entity.lateness-horizont: unknown key (known here: " + String.join(", ",
                        io.dimstream.config.keys.ConfigKeys.ENTITY.knownNames()) + ")",
                "connectors[0].tables[0].match: required (a regular expression over <schema>.<table>)",
                "connectors[1].name: \"shop\" is already the name of connectors[0]",
                "connectors[1]: give one of topic-prefix (Debezium's topic.prefix) or topic-pattern"));
    }

    @Test
    void aConfigWithOnlyAConnectorNeedsNoEntities() {
        DimstreamConfig config = parse(HEAD + "connectors: [{name: shop, topic-prefix: shop}]\n");
        assertThat(config.entities()).isEmpty();
        assertThat(config.connectors().get(0).tableName()).isEqualTo("{table}_history");
        assertThat(config.connectors().get(0).discoveryInterval()).isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(Optional.ofNullable(catchThrowableOfType(ConfigException.class, () -> parse(HEAD))).map(ConfigException::problems))
                .contains(List.of("entities: at least one entity (or a connector under connectors:) is required"));
        assertThat(catchThrowableOfType(ConfigException.class, () -> parse(HEAD.replace("broker:9092", "embedded")
                + "connectors: [{name: shop, topic-prefix: shop}]\n")).problems()).isEqualTo(List.of(
                "connectors: a connector writes to a broker of its own: kafka.bootstrap-servers must name it (not \"embedded\")"));
    }

    @Test
    void theEffectiveConfigPrintsTheConnectorWithItsDefaultsAndItsSecretsMasked() {
        String yaml = parse(HEAD + """
                connectors:
                  - name: sales
                    topic-prefix: sales
                    format: debezium-avro
                    entity: {deserializer-config: {schema.registry.url: "http://registry:8081", basic.auth.user.info: "u:s3cret"}}
                """).describeMasked();
        assertThat(yaml.substring(yaml.indexOf("connectors:"))).isEqualTo("""
                connectors:
                  - name: sales
                    topic-prefix: sales
                    include: []
                    exclude: []
                    format: debezium-avro
                    entity-name: "{table}"
                    table-name: "{table}_history"
                    entity:
                      deserializer-config:
                        schema.registry.url: http://registry:8081
                        basic.auth.user.info: '****'
                    tables: []
                    discovery-interval: PT30S
                """);
    }
}
