package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.dimstream.config.model.AdminConfig;
import io.dimstream.config.ConfigException;
import io.dimstream.config.DimstreamConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The shipped deployment (review M4, hostile check 11), read from the repository's own files:
 * docker-compose.yml publishes nothing on every interface, deploy/dimstream.yml refuses
 * .env.example's placeholder secrets naming each field, and starts with real ones.
 * (deploy/check-compose.sh checks the same through docker-compose where it is installed.)
 */
class DeploymentDefaultsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static Map<String, String> envExample() throws Exception {
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : Files.readAllLines(ROOT.resolve(".env.example"))) {
            if (line.matches("[A-Z_][A-Z0-9_]*=.*")) {
                env.put(line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1));
            }
        }
        return env;
    }

    @Test
    void composePublishesEveryPortOnTheLoopbackOnly() throws Exception {
        JsonNode compose = new YAMLMapper().readTree(ROOT.resolve("docker-compose.yml").toFile());
        List<String> published = new ArrayList<>();
        compose.get("services").fields().forEachRemaining(s -> s.getValue().path("ports")
                .forEach(p -> published.add(s.getKey() + " " + p.asText())));
        assertThat(published).isEqualTo(List.of("schema-registry 127.0.0.1:8081:8081", "postgres 127.0.0.1:5432:5432",
                "admin 127.0.0.1:8080:8080",
                "prometheus 127.0.0.1:9090:9090", "grafana 127.0.0.1:3000:3000"));
    }

    @Test
    void theExampleSecretsAreRefusedNamingEachFieldAndRealOnesAreAccepted() throws Exception {
        Path config = ROOT.resolve("deploy/dimstream.yml");
        Map<String, String> example = envExample();
        // GRAFANA_ADMIN_PASSWORD is Grafana's (service grafana), not a key of the dimstream config
        assertThat(example.keySet()).containsExactly("DIMSTREAM_PG_PASSWORD", "DIMSTREAM_ADMIN_PASSWORD", "DIMSTREAM_API_TOKEN",
                "GRAFANA_ADMIN_PASSWORD");
        String placeholder = "still a placeholder like .env.example's \"change-me\": set a real secret";
        assertThatThrownBy(() -> DimstreamConfig.load(config, example)).isInstanceOfSatisfying(ConfigException.class, e ->
                assertThat(e.problems()).containsExactly(
                        "postgres.password: " + placeholder,
                        "admin.users[0].password: " + placeholder,
                        "admin.api-tokens[0].token: " + placeholder + " (e.g. openssl rand -hex 24)"));

        DimstreamConfig real = DimstreamConfig.load(config, Map.of("DIMSTREAM_PG_PASSWORD", "b8e1c0a4d2f6", "DIMSTREAM_ADMIN_PASSWORD",
                "3f9c2a7e5b1d8c40", "DIMSTREAM_API_TOKEN", "5d0f7a2c9e4b1a8f3c6e0d2b7a9f1c4e"));
        AdminConfig admin = real.requireAdmin();
        // plain http published on 127.0.0.1 only: the one deployment that turns Secure cookies off, saying why
        assertThat(List.of(admin.host(), admin.port(), admin.secureCookie(), admin.trustedProxies()))
                .isEqualTo(List.of("0.0.0.0", 8080, false, List.of()));
    }
}
