package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The two launchers as a user starts them: the repository's {@code ./dimstream} (on the packaged
 * jars of cli/target) and the distribution's {@code bin/dimstream} (cli/target/dimstream.tar.gz
 * unpacked). Runs after {@code package}: the jars and the archive must exist. For each: the JVM
 * options by verb (C1 and the serial collector for commands that end, the JVM's defaults for the
 * service verbs, JAVA_OPTS winning), and class data sharing (the first {@code load} writes the
 * archive, the next maps its classes from it), with the load's whole output each time.
 */
class LauncherIT {

    @TempDir
    Path dir;

    private static final String FIRST = """
            applied             2
            new                 1
            changed             1
            deleted             0
            unchanged           0
            late                0
            duplicates          0
            quarantined         0
            rejected            0
            """;

    private static final String AGAIN = """
            applied             0
            new                 0
            changed             0
            deleted             0
            unchanged           0
            late                0
            duplicates          2
            quarantined         0
            rejected            0
            """;

    record Run(int exit, String out, String err) {
    }

    @ParameterizedTest
    @ValueSource(strings = {"repository", "distribution"})
    void commandsThatEndGetC1AndTheSerialCollectorAndLoadSharesClassesThroughAnArchive(String which) throws Exception {
        Path launcher;
        Path archive;
        if (which.equals("repository")) {
            launcher = Path.of("..", "dimstream").toAbsolutePath().normalize();
            archive = Path.of("target", "dimstream.jsa").toAbsolutePath();
        } else {
            Path tar = Path.of("target", "dimstream.tar.gz").toAbsolutePath();
            assertThat(tar).as("the distribution (./mvnw package)").exists();
            Run untar = run(List.of("tar", "-xzf", tar.toString(), "-C", dir.toString()), Map.of());
            assertThat(untar.exit()).as(untar.err()).isZero();
            launcher = dir.resolve("dimstream/bin/dimstream");
            archive = dir.resolve("dimstream/lib/dimstream.jsa");
        }
        Files.deleteIfExists(archive);

        // the options by verb: -XX:+PrintCommandLineFlags prints the JVM's flags first
        String loadFlags = run(List.of(launcher.toString(), "--version"), Map.of("JAVA_OPTS", "-XX:+PrintCommandLineFlags")).out();
        assertThat(loadFlags).contains("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:MaxHeapSize=536870912")
                .doesNotContain("UseG1GC").containsPattern("(?m)^dimstream \\S+$");
        String serviceFlags = run(List.of(launcher.toString(), "run", "--help"), Map.of("JAVA_OPTS", "-XX:+PrintCommandLineFlags")).out();
        assertThat(serviceFlags).contains("-XX:+UseG1GC").doesNotContain("TieredStopAtLevel", "UseSerialGC");
        String mine = run(List.of(launcher.toString(), "--version"),
                Map.of("JAVA_OPTS", "-XX:+PrintCommandLineFlags -XX:+UseParallelGC -XX:TieredStopAtLevel=4")).out();
        assertThat(mine).contains("-XX:+UseParallelGC", "-XX:TieredStopAtLevel=4").doesNotContain("UseSerialGC", "TieredStopAtLevel=1");

        // class data sharing: the first load writes the archive at its exit, the next maps it
        Path config = dir.resolve("dimstream.yml");
        Files.writeString(config, """
                postgres:
                  url: "%s"
                entities:
                  - name: customer
                    topic: crm.customers
                    table: launcher_%s_customer
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                """.formatted(TestPostgres.jdbcUrl(), which));
        Path input = dir.resolve("events.jsonl");
        Files.write(input, List.of(
                "{\"op\": \"upsert\", \"event_time\": \"2025-08-01T09:00:00Z\", \"data\": {\"customer_id\": \"C1\", \"email\": \"a@x.io\"}}",
                "{\"op\": \"upsert\", \"event_time\": \"2025-08-02T09:00:00Z\", \"data\": {\"customer_id\": \"C1\", \"email\": \"b@x.io\"}}"));
        List<String> load = List.of(launcher.toString(), "load", "--config", config.toString(), "--entity", "customer",
                "--input", input.toString());

        Run first = run(load, Map.of());
        assertThat(first).isEqualTo(new Run(0, FIRST, ""));
        assertThat(archive).as("written by the first load").isNotEmptyFile();
        assertThat(Files.list(archive.getParent()).map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")))
                .as("no temporary archive left").isEmpty();

        Path classLog = dir.resolve("classes-" + which + ".log");
        Run again = run(load, Map.of("JAVA_OPTS", "-Xlog:class+load=info:file=" + classLog));
        assertThat(again).isEqualTo(new Run(0, AGAIN, ""));
        assertThat(Files.readAllLines(classLog)).as("the command's own class came from the archive")
                .anyMatch(l -> l.contains("io.dimstream.cli.LoadCommand source: shared objects file (top)"));

        Run off = run(load, Map.of("DIMSTREAM_CDS", "0", "JAVA_OPTS", "-Xlog:class+load=info:file=" + classLog));
        assertThat(off).isEqualTo(new Run(0, AGAIN, ""));
        assertThat(Files.readAllLines(classLog)).as("DIMSTREAM_CDS=0: from the jar")
                .anyMatch(l -> l.contains("io.dimstream.cli.LoadCommand source: jar:file:") || l.contains("io.dimstream.cli.LoadCommand source: file:"))
                .noneMatch(l -> l.contains("source: shared objects file (top)"));

        // a flight recording (or an agent) in JAVA_OPTS: no archive, which the JVM crashed mapping
        // with JFR's class-file-load hook active (SIGSEGV, exit 134, before the launcher skipped it)
        Path recording = dir.resolve("load-" + which + ".jfr");
        Run recorded = run(load, Map.of("JAVA_OPTS", "-XX:StartFlightRecording=filename=" + recording + " -Xlog:jfr+startup=off "
                + "-Xlog:class+load=info:file=" + classLog));
        assertThat(recorded).isEqualTo(new Run(0, AGAIN, ""));
        assertThat(recording).as("the recording, written at exit").isNotEmptyFile();
        assertThat(Files.readAllLines(classLog)).as("with a recording: from the jar")
                .anyMatch(l -> l.contains("io.dimstream.cli.LoadCommand source: jar:file:") || l.contains("io.dimstream.cli.LoadCommand source: file:"))
                .noneMatch(l -> l.contains("source: shared objects file (top)"));

        // a damaged archive (a disk full while it was renamed, a copy cut short): the JVM refuses to map it
        // and the command runs from the jars, printing nothing about it
        Files.delete(archive); // the JVM writes it read-only
        Files.write(archive, new byte[4096]);
        Run damaged = run(load, Map.of());
        assertThat(damaged).isEqualTo(new Run(0, AGAIN, ""));
    }

    private Run run(List<String> cmd, Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(cmd));
        pb.environment().put("DIMSTREAM_SKIP_BUILD", "1");
        pb.environment().remove("JAVA_OPTS");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "launcher", ".out");
        Path err = Files.createTempFile(dir, "launcher", ".err");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertThat(p.waitFor(2, TimeUnit.MINUTES)).as("%s ended", cmd).isTrue();
        Run r = new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return r;
    }
}
