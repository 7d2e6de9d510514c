package io.dimstream.app.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import io.dimstream.app.testing.TestSockets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link KafkaReachability}'s message for each kind of failure, against real sockets on the
 * loopback, compared whole; and {@link KafkaWait}'s lines.
 */
class KafkaReachabilityTest {

    private static final String SOURCE = "kafka.bootstrap-servers";

    private final TestSockets sockets = new TestSockets();

    @AfterEach
    void closeSockets() throws Exception {
        sockets.close();
    }

    private static int closedPort() throws IOException {
        return TestSockets.closedPort();
    }

    private int silentPort() throws IOException {
        return sockets.silentPort();
    }

    private static KafkaReachability.Unanswered unanswered(String bootstrap) throws InterruptedException {
        KafkaReachability.Outcome outcome = KafkaReachability.probe(KafkaClients.of(bootstrap), SOURCE);
        assertThat(outcome).isInstanceOf(KafkaReachability.Unanswered.class);
        return (KafkaReachability.Unanswered) outcome;
    }

    @Test
    void aClosedPortIsARefusedConnectionWithTheBrokerAndItsListenersToCheck() throws Exception {
        int port = closedPort();
        long t0 = System.nanoTime();

        KafkaReachability.Unanswered result = unanswered("127.0.0.1:" + port);

        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(2));
        assertThat(result.message()).isEqualTo("""
                no Kafka broker answered at 127.0.0.1:%1$d (kafka.bootstrap-servers); what was tried:
                  127.0.0.1:%1$d: TCP connection refused (nothing listens on that port).
                Check: that the broker runs, and that 127.0.0.1:%1$d is one of its listeners (the broker's listeners setting) \
                and the host and port in kafka.bootstrap-servers.""".formatted(port));
        assertThat(result.summary()).isEqualTo("127.0.0.1:%d: TCP connection refused (nothing listens on that port)".formatted(port));
    }

    @Test
    void aPortThatAcceptsButSaysNothingIsNotKafkaForTheseSettingsWithSecurityAndAdvertisedListenersToCheck() throws Exception {
        int port = silentPort();
        long t0 = System.nanoTime();

        KafkaReachability.Unanswered result = unanswered("127.0.0.1:" + port);

        // the TCP connection at once, then the Kafka client's 5 s
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofSeconds(4), Duration.ofSeconds(10));
        assertThat(result.message()).isEqualTo("""
                no Kafka broker answered at 127.0.0.1:%1$d (kafka.bootstrap-servers); what was tried:
                  127.0.0.1:%1$d: accepts TCP connections, but no Kafka answer came within 5 s.
                Check: that 127.0.0.1:%1$d is a Kafka listener whose security protocol is that of kafka.client \
                (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.*: a TLS or SASL listener does not answer a PLAINTEXT \
                client, nor the reverse), and that the broker's advertised.listeners name addresses this machine can reach \
                (clients connect to those after the first answer).""".formatted(port));
    }

    @Test
    void anUnresolvableHostIsADnsFailureWithTheHostNameToCheck() throws Exception {
        KafkaReachability.Unanswered result = unanswered("no-such-host.invalid:9092");

        assertThat(result.message()).isEqualTo("""
                no Kafka broker answered at no-such-host.invalid:9092 (kafka.bootstrap-servers); what was tried:
                  no-such-host.invalid:9092: the host name is unknown (DNS).
                Check: the host name in kafka.bootstrap-servers: this machine's DNS does not know it (a name known only inside \
                a Docker network or a Kubernetes cluster does not resolve outside it).""");
    }

    @Test
    void aNameLookupThatDoesNotEndIsCutAfterItsTimeWithTheResolverToCheck() throws Exception {
        int port = closedPort();
        long t0 = System.nanoTime();

        // a resolver that does not answer (no test DNS can be made to hang): the lookup blocks
        KafkaReachability.Outcome outcome = KafkaReachability.probe(KafkaClients.of("slow-dns.example:9092,127.0.0.1:" + port),
                SOURCE, host -> {
                    if (host.equals("slow-dns.example")) {
                        try {
                            Thread.sleep(60_000);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return InetAddress.getByName(host);
                });

        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofSeconds(10), Duration.ofSeconds(13));
        assertThat(((KafkaReachability.Unanswered) outcome).message()).isEqualTo("""
                no Kafka broker answered at slow-dns.example:9092,127.0.0.1:%1$d (kafka.bootstrap-servers); what was tried:
                  slow-dns.example:9092: the name lookup (DNS) did not end within 5 s.
                  127.0.0.1:%1$d: TCP connection refused (nothing listens on that port).
                Check: that this machine's DNS resolver answers (/etc/resolv.conf, a VPN), and the host name in \
                kafka.bootstrap-servers.
                Check: that the broker runs, and that 127.0.0.1:%1$d is one of its listeners (the broker's listeners setting) \
                and the host and port in kafka.bootstrap-servers.""".formatted(port));
    }

    @Test
    void severalAddressesEachSayWhatHappenedThereWithTheAdviceOfEachKindOnce() throws Exception {
        int closed = closedPort();
        int alsoClosed = closedPort();

        KafkaReachability.Unanswered result = unanswered("no-such-host.invalid:9092, 127.0.0.1:%d,127.0.0.1:%d,kafka"
                .formatted(closed, alsoClosed));

        assertThat(result.message()).isEqualTo("""
                no Kafka broker answered at no-such-host.invalid:9092, 127.0.0.1:%1$d,127.0.0.1:%2$d,kafka \
                (kafka.bootstrap-servers); what was tried:
                  no-such-host.invalid:9092: the host name is unknown (DNS).
                  127.0.0.1:%1$d: TCP connection refused (nothing listens on that port).
                  127.0.0.1:%2$d: TCP connection refused (nothing listens on that port).
                  kafka: not host:port.
                Check: the host name in kafka.bootstrap-servers: this machine's DNS does not know it (a name known only inside \
                a Docker network or a Kubernetes cluster does not resolve outside it).
                Check: that the broker runs, and that 127.0.0.1:%1$d is one of its listeners (the broker's listeners setting) \
                and the host and port in kafka.bootstrap-servers.
                Check: that the broker runs, and that 127.0.0.1:%2$d is one of its listeners (the broker's listeners setting) \
                and the host and port in kafka.bootstrap-servers.
                Check: kafka.bootstrap-servers: each address is host:port, separated by commas.""".formatted(closed, alsoClosed));
    }

    @Test
    void aWaitReportsTheWholeMessageOnceThenALinePerAttemptAndGivesUpAfterItsLimit() throws Exception {
        int port = closedPort();
        List<String> lines = new ArrayList<>();
        KafkaWait wait = KafkaWait.parse("--kafka-wait", "PT1S");
        long t0 = System.nanoTime();

        assertThatThrownBy(() -> wait.await(KafkaClients.of("127.0.0.1:" + port), SOURCE, lines::add, Duration.ofMillis(400)))
                .isInstanceOfSatisfying(KafkaWait.GaveUp.class, g -> {
                    assertThat(g.attempts()).isEqualTo(4);
                    assertThat(g.last().summary()).isEqualTo("127.0.0.1:%d: TCP connection refused (nothing listens on that port)"
                            .formatted(port));
                });

        // attempts at 0, 0.4, 0.8 and 1 s
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(3));
        String refused = "127.0.0.1:%d: TCP connection refused (nothing listens on that port)".formatted(port);
        assertThat(lines).containsExactly(
                "kafka: " + unanswered("127.0.0.1:" + port).message() + "\nTrying again every 0.4 s for up to PT1S (--kafka-wait PT1S).",
                "kafka: attempt 2: no answer: " + refused,
                "kafka: attempt 3: no answer: " + refused,
                "kafka: attempt 4: no answer: " + refused);
    }

    @Test
    void aWaitOfZeroTriesOnceAndForeverSaysHowToStop() throws Exception {
        int port = closedPort();
        List<String> lines = new ArrayList<>();

        assertThatThrownBy(() -> KafkaWait.parse("--kafka-wait", "PT0S").await(KafkaClients.of("127.0.0.1:" + port), SOURCE, lines::add))
                .isInstanceOfSatisfying(KafkaWait.GaveUp.class, g -> assertThat(g.attempts()).isEqualTo(1));

        String message = unanswered("127.0.0.1:" + port).message();
        assertThat(lines).containsExactly("kafka: " + message + "\nNot trying again (--kafka-wait PT0S).");
        List<String> foreverLines = new CopyOnWriteArrayList<>();
        Thread forever = new Thread(() -> {
            try {
                KafkaWait.parse("--kafka-wait", "forever").await(KafkaClients.of("127.0.0.1:" + port), SOURCE, foreverLines::add,
                        Duration.ofMillis(100));
            } catch (InterruptedException | KafkaWait.GaveUp stopped) {
                foreverLines.add("ended: " + stopped.getClass().getSimpleName());
            }
        });
        forever.start();
        while (foreverLines.size() < 3) {
            Thread.sleep(20);
        }
        forever.interrupt();
        forever.join(5_000);
        assertThat(foreverLines.get(0)).isEqualTo("kafka: " + message
                + "\nTrying again every 0.1 s until it answers (--kafka-wait forever; Ctrl-C stops).");
        assertThat(foreverLines.subList(1, 3)).containsExactly(
                "kafka: attempt 2: no answer: 127.0.0.1:%d: TCP connection refused (nothing listens on that port)".formatted(port),
                "kafka: attempt 3: no answer: 127.0.0.1:%d: TCP connection refused (nothing listens on that port)".formatted(port));
        assertThat(foreverLines.get(foreverLines.size() - 1)).isEqualTo("ended: InterruptedException");
        assertThat(KafkaWait.parse("--kafka-wait", "forever")).isEqualTo(new KafkaWait(null, "--kafka-wait"));
        assertThat(KafkaWait.parse("--kafka-wait", "forever").text()).isEqualTo("forever");
        assertThatThrownBy(() -> KafkaWait.parse("--kafka-wait", "30s")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--kafka-wait: \"30s\" is neither forever nor an ISO-8601 duration (PT0S, PT30S, PT5M)");
        assertThatThrownBy(() -> KafkaWait.parse("--kafka-wait", "-PT1S")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--kafka-wait: must not be negative, got PT-1S");
    }
}
