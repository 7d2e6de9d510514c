package io.dimstream.app.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.topology.DimstreamTopology;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.config.DimstreamConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** From the config's {@code streams-client} keys to the Kafka Streams clients the service starts and the groups they join. */
class EntityStreamsClientsTest {

    @Test
    void entitiesNamingOneClientShareItAndTheOthersRunOnTheirOwnUnderTheirDeploymentsApplicationId() {
        DimstreamConfig config = DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - {name: accounts, topic: crm.accounts, table: accounts_h, key: [id], tracked: [a], columns: {id: text, a: text}, streams-client: crm}
                  - {name: customers, topic: crm.customers, table: customers_h, key: [id], tracked: [a], columns: {id: text, a: text}}
                  - {name: contacts, topic: crm.contacts, table: contacts_h, key: [id], tracked: [a], columns: {id: text, a: text}, streams-client: crm}
                """, "config t.yml", Map.of());

        Map<String, List<EntityPipeline>> byClient = EntityStreamsClients.byClient(EntityPipeline.fromConfig(config, "prod"));

        Map<String, List<String>> entities = new LinkedHashMap<>();
        byClient.forEach((client, pipelines) -> entities.put(DimstreamTopology.streamsApplicationId("prod", client),
                pipelines.stream().map(p -> p.entity().name()).toList()));
        assertThat(entities).containsExactly(
                Map.entry("prod.crm", List.of("accounts", "contacts")),
                Map.entry("prod.customers", List.of("customers")));
    }
}
