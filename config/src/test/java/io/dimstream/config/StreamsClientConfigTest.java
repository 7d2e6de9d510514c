package io.dimstream.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.dimstream.config.model.EntityConfig;
import io.dimstream.db.schema.ConnectorTables;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code streams-client}: which Kafka Streams client an entity runs on. An entity declared by hand
 * runs on its own; a connector's tables share the connector's, unless {@code entity:} or a
 * {@code tables:} item names another; a name that cannot name Kafka topics is refused naming the field.
 */
class StreamsClientConfigTest {

    private static final String HEAD = """
            kafka: {bootstrap-servers: "broker:9092"}
            postgres: {url: "jdbc:postgresql://db/x", user: u, password: p}
            """;

    private static final String ENTITIES = HEAD + """
            entities:
              - {name: customers, topic: crm.customers, table: customers_history, key: [id], tracked: [email], columns: {id: text, email: text}}
              - {name: accounts, topic: crm.accounts, table: accounts_history, key: [id], tracked: [tier], columns: {id: text, tier: text},
                 streams-client: crm}
              - {name: contacts, topic: crm.contacts, table: contacts_history, key: [id], tracked: [phone], columns: {id: text, phone: text},
                 streams-client: crm}
            """;

    private static DimstreamConfig parse(String yaml) {
        return DimstreamConfig.parse(yaml, "test", Map.of());
    }

    private static ConnectorTables.Found found(String table) {
        return new ConnectorTables.Found("shop", "shop.public." + table, "public", table, List.of("id"), Map.of("id", "integer", "v", "text"));
    }

    @Test
    void aDeclaredEntityRunsOnAClientOfItsOwnUnlessItNamesOneOthersShare() {
        DimstreamConfig config = parse(ENTITIES);

        assertThat(config.entities().stream().map(e -> e.name() + " on " + e.streamsClient()).toList())
                .isEqualTo(List.of("customers on customers", "accounts on crm", "contacts on crm"));
        // the effective config prints the key where it is not the entity's own name, and reads back the same
        String described = config.describeMasked();
        assertThat(described).contains("    format: json\n    streams-client: crm\n").doesNotContain("streams-client: customers");
        assertThat(parse(described.replace("'****'", "p"))).isEqualTo(config);
    }

    @Test
    void aConnectorsTablesShareTheConnectorsClientUnlessEntityOrATablesItemNamesAnother() {
        DimstreamConfig config = parse(HEAD + """
                connectors:
                  - name: shop
                    topic-prefix: shop
                    tables:
                      - {match: 'public\\.payments', streams-client: payments}
                  - name: erp
                    topic-prefix: shop
                    include: ['public\\.ledger']
                    entity-name: 'erp_{table}'
                    table-name: 'erp_{table}'
                    entity: {streams-client: erp-tables}
                """);

        ConnectorEntities.Resolved r = ConnectorEntities.resolve(config, List.of(found("orders"), found("items"), found("payments"),
                new ConnectorTables.Found("erp", "shop.public.ledger", "public", "ledger", List.of("id"), Map.of("id", "integer", "v", "text"))));

        assertThat(r.leftOut()).isEmpty();
        assertThat(r.config().entities().stream().map(e -> e.name() + " on " + e.streamsClient()).toList()).isEqualTo(List.of(
                "orders on shop", "items on shop", "payments on payments", "erp_ledger on erp-tables"));
    }

    @Test
    void aNameThatCannotNameKafkaTopicsIsRefusedNamingTheField() {
        ConfigException entity = catchThrowableOfType(ConfigException.class, () -> parse(ENTITIES.replace("streams-client: crm}",
                "streams-client: 'crm clients'}")));
        assertThat(entity.problems()).isEqualTo(List.of(
                "entities[1].streams-client: \"crm clients\" must be letters, digits, '.', '_' or '-' (it names Kafka topics and a group)",
                "entities[2].streams-client: \"crm clients\" must be letters, digits, '.', '_' or '-' (it names Kafka topics and a group)"));
        ConfigException connector = catchThrowableOfType(ConfigException.class, () -> parse(HEAD + """
                connectors: [{name: 'shop/db', topic-prefix: shop}]
                entities: [{name: e, topic: t, table: t, key: [id], tracked: [v], columns: {id: text, v: text}}]
                """));
        assertThat(connector.problems()).isEqualTo(List.of(
                "connectors[0].name: \"shop/db\" must be letters, digits, '.', '_' or '-' (it names its tables' Kafka Streams client)"));
    }

    /**
     * An entity's name is in its state stores' changelog topics and its repartition topic, so it must
     * name Kafka topics whatever its client: refused naming the field when declared by hand, the table
     * left out naming it when a connector found it (before, both were taken and {@code run} failed in Kafka Streams).
     */
    @Test
    void anEntityNameThatCannotNameKafkaTopicsIsRefusedOrItsTableLeftOut() {
        ConfigException declared = catchThrowableOfType(ConfigException.class, () -> parse(ENTITIES.replace("name: accounts,",
                "name: 'crm accounts',")));
        assertThat(declared.problems()).isEqualTo(List.of("entities[1].name: \"crm accounts\" must be letters, digits, '.', '_' or '-' "
                + "(it names Kafka topics: its state stores' changelogs and its repartition topic)"));

        DimstreamConfig config = parse(HEAD + """
                connectors:
                  - name: shop
                    topic-prefix: shop
                """);
        ConnectorEntities.Resolved r = ConnectorEntities.resolve(config, List.of(found("orders"), found("order items")));

        assertThat(r.config().entities().stream().map(EntityConfig::name).toList()).isEqualTo(List.of("orders"));
        assertThat(r.leftOut()).isEqualTo(Map.of("shop.public.order items", "connector shop, table public.order items "
                + "(topic shop.public.order items): entity.name: \"order items\" must be letters, digits, '.', '_' or '-' "
                + "(it names Kafka topics: its state stores' changelogs and its repartition topic)"));
    }
}
