package io.dimstream.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KafkaReachability} against a real broker with a PLAINTEXT and a SASL_PLAINTEXT listener
 * ({@link KafkaSecurityIT#startWithSasl}): each listener answers a client with its settings; a
 * client whose security settings do not match the listener, or whose password is wrong, gets the
 * message naming the security settings to check, compared whole. A wait that began while the
 * broker was down ends with the line saying it answered once it is back.
 */
class KafkaReachabilityIT {

    private static final String SOURCE = "kafka.bootstrap-servers";

    private static final String NOT_KAFKA_ADVICE = "Check: that %1$s is a Kafka listener whose security protocol is that of "
            + "kafka.client (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.*: a TLS or SASL listener does not answer a "
            + "PLAINTEXT client, nor the reverse), and that the broker's advertised.listeners name addresses this machine can "
            + "reach (clients connect to those after the first answer).";

    private static final String KAFKA_ERROR_ADVICE = "Check: the security settings in kafka.client (security.protocol, "
            + "sasl.mechanism, sasl.jaas.config, ssl.*) against the broker's listener at %1$s, and the credentials.";

    private static Map<String, String> sasl(String password) {
        return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN",
                "sasl.jaas.config", KafkaSecurityIT.jaas(KafkaSecurityIT.USER, password));
    }

    private static String message(KafkaClients clients) throws InterruptedException {
        KafkaReachability.Outcome outcome = KafkaReachability.probe(clients, SOURCE);
        assertThat(outcome).isInstanceOf(KafkaReachability.Unanswered.class);
        return ((KafkaReachability.Unanswered) outcome).message();
    }

    private static String unanswered(String address, String what, String advice) {
        return ("no Kafka broker answered at %1$s (kafka.bootstrap-servers); what was tried:\n  %1$s: " + what + "\n" + advice)
                .formatted(address);
    }

    @Test
    void eachListenerAnswersItsOwnSettingsAndAMismatchNamesTheSecuritySettings(@TempDir Path dir) throws Exception {
        int saslPort = KafkaSecurityIT.freePort();
        try (EmbeddedKafka kafka = KafkaSecurityIT.startWithSasl(dir.resolve("kafka"), saslPort)) {
            String plain = kafka.bootstrapServers();
            String sasl = "127.0.0.1:" + saslPort;

            assertThat(KafkaReachability.probe(KafkaClients.of(plain), SOURCE)).isEqualTo(new KafkaReachability.Answered(plain, 1));
            assertThat(KafkaReachability.probe(new KafkaClients(sasl, sasl(KafkaSecurityIT.PASSWORD)), SOURCE))
                    .isEqualTo(new KafkaReachability.Answered(sasl, 1));

            assertThat(message(new KafkaClients(sasl, sasl("not-the-password")))).isEqualTo(unanswered(sasl,
                    "accepts TCP connections, but Kafka refused the client: SaslAuthenticationException: Authentication failed: "
                            + "Invalid username or password.", KAFKA_ERROR_ADVICE));
            // a PLAINTEXT client at the SASL listener: the broker closes the connection at its first request
            assertThat(message(KafkaClients.of(sasl))).isEqualTo(unanswered(sasl,
                    "accepts TCP connections, but no Kafka answer came within 5 s.", NOT_KAFKA_ADVICE));
            // a SASL client at the PLAINTEXT listener
            assertThat(message(new KafkaClients(plain, sasl(KafkaSecurityIT.PASSWORD)))).isEqualTo(unanswered(plain,
                    "accepts TCP connections, but Kafka refused the client: IllegalSaslStateException: Unexpected handshake "
                            + "request with client mechanism PLAIN, enabled mechanisms are [].", KAFKA_ERROR_ADVICE));
            // a TLS client at the PLAINTEXT listener
            assertThat(message(new KafkaClients(plain, Map.of("security.protocol", "SSL")))).isEqualTo(unanswered(plain,
                    "accepts TCP connections, but no Kafka answer came within 5 s.", NOT_KAFKA_ADVICE));
        }
    }

    @Test
    void aWaitForeverEndsWhenTheBrokerComesBackSayingAtWhichAttempt(@TempDir Path dir) throws Exception {
        Path logDir = dir.resolve("kafka");
        String bootstrap;
        try (EmbeddedKafka first = EmbeddedKafka.start(logDir)) {
            bootstrap = first.bootstrapServers();
        }
        List<String> lines = new CopyOnWriteArrayList<>();
        KafkaWait forever = KafkaWait.parse("--kafka-wait", KafkaWait.FOREVER);
        CompletableFuture<KafkaReachability.Answered> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return forever.await(KafkaClients.of(bootstrap), SOURCE, lines::add, Duration.ofMillis(300));
            } catch (InterruptedException | KafkaWait.GaveUp e) {
                throw new IllegalStateException(e);
            }
        });
        while (lines.size() < 2) {
            Thread.sleep(20);
        }

        // the same log directory: the same port
        try (EmbeddedKafka again = EmbeddedKafka.start(logDir)) {
            assertThat(again.bootstrapServers()).isEqualTo(bootstrap);
            assertThat(waiting.get(1, TimeUnit.MINUTES)).isEqualTo(new KafkaReachability.Answered(bootstrap, 1));
        }

        List<String> expected = new ArrayList<>();
        expected.add("kafka: " + unanswered(bootstrap, "TCP connection refused (nothing listens on that port).",
                "Check: that the broker runs, and that %1$s is one of its listeners (the broker's listeners setting) and the "
                        + "host and port in kafka.bootstrap-servers.")
                + "\nTrying again every 0.3 s until it answers (--kafka-wait forever; Ctrl-C stops).");
        // while the broker starts, its port refuses, or accepts before it answers as Kafka
        for (int attempt = 2; attempt < lines.size(); attempt++) {
            String line = lines.get(attempt - 1);
            expected.add(line.endsWith("(nothing listens on that port)")
                    ? "kafka: attempt " + attempt + ": no answer: " + bootstrap + ": TCP connection refused (nothing listens on that port)"
                    : "kafka: attempt " + attempt + ": no answer: " + bootstrap + ": accepts TCP connections, but no Kafka answer came "
                    + "within 5 s");
        }
        expected.add("kafka: attempt " + lines.size() + ": " + bootstrap + " answered (1 broker)");
        assertThat(lines).containsExactlyElementsOf(expected);
    }
}
