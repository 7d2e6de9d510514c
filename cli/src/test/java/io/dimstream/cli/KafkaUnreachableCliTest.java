package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.kafka.KafkaReachability;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import io.dimstream.app.testing.TestSockets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code run}, {@code publish-snapshot} and {@code replay} with a config whose Kafka does not
 * answer (a closed port, a port that accepts and says nothing, on 127.0.0.1): the message on
 * stderr within 15 s, then a line per attempt, and the exit per {@code --kafka-wait}. Nothing here
 * needs PostgreSQL: the check comes before it.
 */
class KafkaUnreachableCliTest {

    private static final Duration FIRST_MESSAGE_WITHIN = Duration.ofSeconds(15);

    @TempDir
    Path dir;

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

    private Path config(String bootstrap) throws IOException {
        return Files.writeString(dir.resolve("dimstream.yml"), """
                kafka: {bootstrap-servers: "%s"}
                postgres: {url: "jdbc:postgresql://127.0.0.1:1/never-reached"}
                entities:
                  - {name: customer, topic: crm.customer_snapshots, mode: snapshot, snapshot-time-field: slice_time,
                     table: dim_customer, key: [customer_id], tracked: [email], columns: {customer_id: text, email: text}}
                """.formatted(bootstrap));
    }

    /** The message {@link KafkaReachability} gives for this address, as the command prints it. */
    private static String message(String bootstrap) throws InterruptedException {
        return "kafka: " + ((KafkaReachability.Unanswered) KafkaReachability.probe(KafkaClients.of(bootstrap),
                "kafka.bootstrap-servers")).message();
    }

    /** A command line running in its own thread, its stderr readable while it runs. */
    private static final class Running {
        final StringWriter err = new StringWriter();
        final StringWriter out = new StringWriter();
        final AtomicInteger exit = new AtomicInteger(-1);
        final Thread thread;
        final long started = System.nanoTime();

        Running(String... args) {
            CommandLine cli = DimstreamCli.commandLine();
            cli.setOut(new PrintWriter(out, true));
            cli.setErr(new PrintWriter(err, true));
            thread = new Thread(() -> exit.set(cli.execute(args)), "cli");
            thread.start();
        }

        /** How long until stderr held {@code lines} lines (at most {@code limit}). */
        Duration untilErrLines(int lines, Duration limit) throws InterruptedException {
            while (err.toString().lines().count() < lines && System.nanoTime() - started < limit.toNanos()) {
                Thread.sleep(20);
            }
            return Duration.ofNanos(System.nanoTime() - started);
        }

        int awaitExit(Duration limit) throws InterruptedException {
            thread.join(limit.toMillis());
            assertThat(thread.isAlive()).as("the command ended; stderr so far:\n%s", err).isFalse();
            return exit.get();
        }
    }

    @Test
    void runAgainstAClosedPortWithNoWaitPrintsWhatWasTriedAndWhatToCheckAndExits69() throws Exception {
        String bootstrap = "127.0.0.1:" + closedPort();
        Running run = new Running("run", "--config", config(bootstrap).toString(), "--data-dir", dir.resolve("data").toString(),
                "--metrics-port", "-1", "--kafka-wait", "PT0S");

        assertThat(run.awaitExit(FIRST_MESSAGE_WITHIN)).isEqualTo(CliFailure.KAFKA_UNREACHABLE);
        assertThat(Duration.ofNanos(System.nanoTime() - run.started)).isLessThan(FIRST_MESSAGE_WITHIN);
        assertThat(run.err.toString()).isEqualTo(message(bootstrap) + "\n"
                + "Not trying again (--kafka-wait PT0S).\n"
                + "dimstream run: Kafka at " + bootstrap + " did not answer (1 attempt, --kafka-wait PT0S); dimstream did not start\n");
        assertThat(run.out.toString()).startsWith("effective config (").doesNotContain("running:");
    }

    @Test
    void runByDefaultKeepsTryingWithALinePerAttemptUntilStopped() throws Exception {
        String bootstrap = "127.0.0.1:" + closedPort();
        Running run = new Running("run", "--config", config(bootstrap).toString(), "--data-dir", dir.resolve("data").toString(),
                "--metrics-port", "-1");

        String first = message(bootstrap) + "\nTrying again every 5 s until it answers (--kafka-wait forever; Ctrl-C stops).";
        assertThat(run.untilErrLines(1, FIRST_MESSAGE_WITHIN)).isLessThan(FIRST_MESSAGE_WITHIN);
        // attempts 2 and 3 come 5 s apart
        run.untilErrLines((int) first.lines().count() + 2, Duration.ofSeconds(30));
        run.thread.interrupt();

        assertThat(run.awaitExit(Duration.ofSeconds(10))).isEqualTo(CliFailure.FAILED);
        String refused = bootstrap + ": TCP connection refused (nothing listens on that port)";
        assertThat(run.err.toString()).isEqualTo(first + "\n"
                + "kafka: attempt 2: no answer: " + refused + "\n"
                + "kafka: attempt 3: no answer: " + refused + "\n"
                + "dimstream run: interrupted while waiting for Kafka at " + bootstrap + "\n");
    }

    @Test
    void runAgainstAPortThatSaysNothingNamesTheSecuritySettingsWithin15Seconds() throws Exception {
        String bootstrap = "127.0.0.1:" + silentPort();
        Running run = new Running("run", "--config", config(bootstrap).toString(), "--data-dir", dir.resolve("data").toString(),
                "--metrics-port", "-1", "--kafka-wait", "PT0S");

        assertThat(run.awaitExit(FIRST_MESSAGE_WITHIN)).isEqualTo(CliFailure.KAFKA_UNREACHABLE);
        assertThat(run.err.toString()).isEqualTo("""
                kafka: no Kafka broker answered at %1$s (kafka.bootstrap-servers); what was tried:
                  %1$s: accepts TCP connections, but no Kafka answer came within 5 s.
                Check: that %1$s is a Kafka listener whose security protocol is that of kafka.client (security.protocol, \
                sasl.mechanism, sasl.jaas.config, ssl.*: a TLS or SASL listener does not answer a PLAINTEXT client, nor the \
                reverse), and that the broker's advertised.listeners name addresses this machine can reach (clients connect to \
                those after the first answer).
                Not trying again (--kafka-wait PT0S).
                dimstream run: Kafka at %1$s did not answer (1 attempt, --kafka-wait PT0S); dimstream did not start
                """.formatted(bootstrap));
    }

    @Test
    void publishSnapshotRetriesForItsWaitThenExits69HavingSentNothing() throws Exception {
        String bootstrap = "127.0.0.1:" + closedPort();
        Path rows = Files.writeString(dir.resolve("slice.jsonl"), "{\"customer_id\": \"C1\", \"email\": \"a@example.com\"}\n");
        Running publish = new Running("publish-snapshot", "--config", config(bootstrap).toString(), "--entity", "customer",
                "--at", "2025-08-01T00:00:00Z", "--input", rows.toString(), "--kafka-wait", "PT6S");

        assertThat(publish.untilErrLines(1, FIRST_MESSAGE_WITHIN)).isLessThan(FIRST_MESSAGE_WITHIN);
        // attempts at 0, 5 and 6 s
        assertThat(publish.awaitExit(Duration.ofSeconds(20))).isEqualTo(CliFailure.KAFKA_UNREACHABLE);
        String refused = bootstrap + ": TCP connection refused (nothing listens on that port)";
        assertThat(publish.err.toString()).isEqualTo(message(bootstrap) + "\n"
                + "Trying again every 5 s for up to PT6S (--kafka-wait PT6S).\n"
                + "kafka: attempt 2: no answer: " + refused + "\n"
                + "kafka: attempt 3: no answer: " + refused + "\n"
                + "dimstream publish-snapshot: Kafka at " + bootstrap + " did not answer (3 attempts, --kafka-wait PT6S); "
                + "nothing was published\n");
        assertThat(publish.out.toString()).isEmpty();
    }

    @Test
    void replayWithNoWaitQueuesNothingAndExits69() throws Exception {
        String bootstrap = "127.0.0.1:" + closedPort();
        CliRun run = CliRun.of("replay", "--config", config(bootstrap).toString(), "--entity", "customer", "--kafka-wait", "PT0S");

        assertThat(run.exitCode()).isEqualTo(CliFailure.KAFKA_UNREACHABLE);
        assertThat(run.err()).isEqualTo(message(bootstrap) + "\n"
                + "Not trying again (--kafka-wait PT0S).\n"
                + "dimstream replay: Kafka at " + bootstrap + " did not answer (1 attempt, --kafka-wait PT0S); the job was not queued\n");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void aWaitThatIsNeitherForeverNorADurationIsAUsageError() throws Exception {
        CliRun run = CliRun.of("replay", "--config", config("127.0.0.1:1").toString(), "--entity", "customer", "--kafka-wait", "30s");

        assertThat(run.exitCode()).isEqualTo(CliFailure.USAGE);
        assertThat(run.err()).startsWith("Invalid value for option '--kafka-wait': --kafka-wait: \"30s\" is neither forever nor an "
                + "ISO-8601 duration (PT0S, PT30S, PT5M)\n");
    }
}
