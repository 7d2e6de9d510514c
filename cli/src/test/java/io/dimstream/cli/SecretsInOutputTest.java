package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.db.testing.TestPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No secret reaches what a verb prints (review M3, hostile check 20): each verb runs in a child
 * JVM, as an operator runs it, and everything it writes, stdout, stderr and the log lines (DEBUG
 * included), is searched. The database URL carries {@code password=} and {@code sslpassword=}
 * and names a role the tests' PostgreSQL does not have, so the start fails and the failure is printed too (Kafka is a real
 * broker: {@code run} waits for Kafka before it opens the database); an Avro entity's
 * {@code deserializer-config} holds the registry's {@code basic.auth.user.info} from the
 * environment.
 */
class SecretsInOutputTest {

    private static final String PG_SECRET = "s3cret-pg";
    private static final String SSL_SECRET = "k3y-ssl";
    private static final String REGISTRY_SECRET = "hunter2-registry";
    /** The tests' PostgreSQL, as a role it does not have: the login is refused for good, so the verb fails at once (not after 30 s). */
    private static final String SERVER = TestPostgres.jdbcUrl().replaceFirst("^jdbc:postgresql://([^/]+)/.*$", "$1");
    private static final String URL = "jdbc:postgresql://" + SERVER + "/dim?user=no_such_role_dim&password=" + PG_SECRET
            + "&sslpassword=" + SSL_SECRET;
    private static final String MASKED_URL = "jdbc:postgresql://" + SERVER + "/dim?user=no_such_role_dim&password=****&sslpassword=****";

    private static EmbeddedKafka kafka;

    @TempDir
    Path dir;
    private Path config;

    @BeforeAll
    static void startKafka() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stopKafka() {
        kafka.close();
    }

    @BeforeEach
    void writeConfig() throws IOException {
        config = Files.writeString(dir.resolve("dimstream.yml"), """
                kafka: {bootstrap-servers: "%s"}
                postgres:
                  url: "%s"
                entities:
                  - name: order
                    topic: shop.orders
                    format: avro
                    table: dim_order
                    key: [order_id]
                    tracked: [status]
                    columns: {order_id: text, status: text}
                    deserializer-config:
                      schema.registry.url: "http://registry:8081"
                      basic.auth.user.info: "${REGISTRY_USER_INFO}"
                admin:
                  users: [{name: alice, role: admin, password: "${ADMIN_PASSWORD}"}]
                """.formatted(kafka.bootstrapServers(), URL));
    }

    /** What a child JVM running {@code dimstream ARGS} printed: exit code, stdout, stderr. */
    private record Output(int exit, String out, String err) {
        String all() {
            return out + err;
        }
    }

    private Output dimstream(String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=debug", "-cp", System.getProperty("java.class.path"),
                "io.dimstream.cli.DimstreamCli"));
        cmd.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().putAll(Map.of("REGISTRY_USER_INFO", "reg:" + REGISTRY_SECRET, "ADMIN_PASSWORD", "a-long-admin-password"));
        Process p = pb.start();
        assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("dimstream %s finished", List.of(args)).isTrue();
        return new Output(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }

    @Test
    void runPrintsTheEffectiveConfigAndItsFailureWithEverySecretMasked() throws Exception {
        Output run = dimstream("run", "--config", config.toString(), "--data-dir", dir.resolve("data").toString(),
                "--metrics-port", "-1");

        assertThat(run.exit()).as(run.all()).isEqualTo(1);
        assertThat(run.all()).doesNotContain(PG_SECRET).doesNotContain(SSL_SECRET).doesNotContain(REGISTRY_SECRET);
        assertThat(run.out()).contains("""
                postgres:
                  url: %s
                  pool-size: 10
                """.formatted(MASKED_URL)).contains("""
                    deserializer-config:
                      schema.registry.url: http://registry:8081
                      basic.auth.user.info: '****'
                """);
        assertThat(run.err().lines().filter(l -> l.startsWith("dimstream run: ")).toList()).singleElement().asString()
                .startsWith("dimstream run: cannot start: cannot connect to PostgreSQL at " + MASKED_URL + " as null: ");
    }

    @Test
    void adminAndConfigMaskTheUrlToo() throws Exception {
        Output admin = dimstream("admin", "--config", config.toString());
        assertThat(admin.exit()).as(admin.all()).isEqualTo(2);
        assertThat(admin.all()).doesNotContain(PG_SECRET).doesNotContain(SSL_SECRET).doesNotContain(REGISTRY_SECRET);
        assertThat(admin.err().lines().filter(l -> l.startsWith("dimstream admin: ")).toList()).singleElement().asString()
                .startsWith("dimstream admin: cannot connect to PostgreSQL at " + MASKED_URL + " as null: ");

        Output described = dimstream("config", "--config", config.toString());
        assertThat(described.exit()).as(described.all()).isZero();
        assertThat(described.all()).doesNotContain(PG_SECRET).doesNotContain(SSL_SECRET).doesNotContain(REGISTRY_SECRET)
                .contains("  url: " + MASKED_URL + "\n").contains("      basic.auth.user.info: '****'\n");
    }
}
