package io.dimstream.config;

import io.dimstream.config.model.KafkaConfig;
import static io.dimstream.config.DimstreamConfigTest.designWith;
import static io.dimstream.config.DimstreamConfigTest.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code kafka.client:}: settings for every Kafka client dimstream makes (security first of all). */
class KafkaClientConfigTest {

    private static final String BOOTSTRAP = "  bootstrap-servers: embedded          # \"embedded\": start a broker inside the process";
    private static final Map<String, String> ENV = Map.of("DIMSTREAM_PG_PASSWORD", "s3cret",
            "KAFKA_JAAS", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ds\" password=\"k4fka\";");

    private static String withClient(String lines) {
        // the text blocks below start at the kafka: section's indentation
        return designWith(BOOTSTRAP, "  bootstrap-servers: broker-1:9093,broker-2:9093\n" + lines.indent(2).stripTrailing());
    }

    @Test
    void clientSettingsAreReadInOrderWithSecretsFromTheEnvironment() {
        DimstreamConfig config = DimstreamConfig.parse(withClient("""
                  client:
                    security.protocol: SASL_SSL
                    sasl.mechanism: SCRAM-SHA-512
                    sasl.jaas.config: ${KAFKA_JAAS}
                    ssl.truststore.location: /etc/dimstream/truststore.p12
                    request.timeout.ms: 45000
                  streams: {commit.interval.ms: 500}"""), "test.yml", ENV);

        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("security.protocol", "SASL_SSL");
        expected.put("sasl.mechanism", "SCRAM-SHA-512");
        expected.put("sasl.jaas.config", ENV.get("KAFKA_JAAS"));
        expected.put("ssl.truststore.location", "/etc/dimstream/truststore.p12");
        expected.put("request.timeout.ms", "45000");
        assertThat(config.kafka().orElseThrow()).isEqualTo(new KafkaConfig("broker-1:9093,broker-2:9093",
                Map.of("commit.interval.ms", "500"), expected));
    }

    @Test
    void theDescribedConfigMasksTheJaasConfig() {
        DimstreamConfig config = DimstreamConfig.parse(withClient("""
                  client:
                    security.protocol: SASL_SSL
                    sasl.jaas.config: ${KAFKA_JAAS}
                    ssl.keystore.password: ks-pass"""), "test.yml", ENV);

        String described = config.describeMasked();

        assertThat(described).doesNotContain("k4fka").doesNotContain("ks-pass").startsWith("""
                kafka:
                  bootstrap-servers: "broker-1:9093,broker-2:9093"
                  client:
                    security.protocol: SASL_SSL
                    sasl.jaas.config: '****'
                    ssl.keystore.password: '****'
                postgres:
                """);
    }

    @Test
    void aNestedValueIsRefusedNamingTheField() {
        assertThat(refusal(withClient("""
                  client:
                    security.protocol: [SASL_SSL]""")))
                .contains("kafka.client.security.protocol: expected a single value (a Kafka client property), got a list");
    }
}
