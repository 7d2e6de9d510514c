package io.dimstream.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.model.KafkaConfig;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaClientsTest {

    @Test
    void settingsCommonToConsumersProducersAndAdminClientsPass() {
        assertThat(KafkaClients.problems(Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", "x", "ssl.truststore.location", "/t.p12", "ssl.truststore.password", "p",
                "client.dns.lookup", "use_all_dns_ips", "request.timeout.ms", "30000"))).isEmpty();
    }

    @Test
    void eachBadNameIsRefusedNamingTheField() {
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("bootstrap.servers", "b:9092");
        bad.put("max.poll.records", "10");   // consumer only
        bad.put("linger.ms", "5");           // producer only
        bad.put("securty.protocol", "SSL");  // a typo

        assertThat(KafkaClients.problems(bad)).containsExactly(
                "kafka.client.bootstrap.servers: set kafka.bootstrap-servers instead",
                "kafka.client.max.poll.records: not a setting common to Kafka consumers, producers and admin clients "
                        + "(e.g. security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location); "
                        + "consumer- or producer-only settings of Kafka Streams go in kafka.streams: with their prefix",
                "kafka.client.linger.ms: not a setting common to Kafka consumers, producers and admin clients "
                        + "(e.g. security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location); "
                        + "consumer- or producer-only settings of Kafka Streams go in kafka.streams: with their prefix",
                "kafka.client.securty.protocol: not a setting common to Kafka consumers, producers and admin clients "
                        + "(e.g. security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location); "
                        + "consumer- or producer-only settings of Kafka Streams go in kafka.streams: with their prefix");
    }

    @Test
    void propertiesAreTheSettingsPlusTheBootstrapServersAndAFreshMapEachTime() {
        KafkaClients clients = KafkaClients.of("b1:9093", new KafkaConfig("ignored:1", Map.of(), Map.of("security.protocol", "SSL")));

        Map<String, Object> first = clients.properties();
        first.put("group.id", "mine");

        assertThat(first).isEqualTo(Map.of("bootstrap.servers", "b1:9093", "security.protocol", "SSL", "group.id", "mine"));
        assertThat(clients.properties()).isEqualTo(Map.of("bootstrap.servers", "b1:9093", "security.protocol", "SSL"));
    }
}
