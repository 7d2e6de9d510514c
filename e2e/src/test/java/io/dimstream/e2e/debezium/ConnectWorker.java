package io.dimstream.e2e.debezium;

import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A Kafka Connect worker in standalone mode ({@code ConnectStandalone}) running one connector, as a
 * child JVM on a class path of its own: the jars module {@code debezium-connect} copies to its
 * {@code target/connect-lib} (Connect's release with the Debezium connector), passed to the test as
 * system property {@value #LIB_PROPERTY}. Connect's Kafka and the test's (dimstream's) never share
 * a class path. Offsets go to a file; the worker's output to {@code connect.log} in its directory.
 */
final class ConnectWorker implements AutoCloseable {

    static final String LIB_PROPERTY = "dimstream.connect.lib";
    private static final String MAIN = "org.apache.kafka.connect.cli.ConnectStandalone";

    private final Process process;
    private final Path log;

    private ConnectWorker(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /**
     * Starts the worker against {@code bootstrapServers} with the connector {@code connector}
     * (its properties: name, connector.class and its own). Converters: JsonConverter with schemas,
     * for key and value.
     */
    static ConnectWorker start(Path dir, String bootstrapServers, Map<String, String> connector) throws IOException {
        Files.createDirectories(dir);
        Properties worker = new Properties();
        worker.setProperty("bootstrap.servers", bootstrapServers);
        worker.setProperty("key.converter", "org.apache.kafka.connect.json.JsonConverter");
        worker.setProperty("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        worker.setProperty("key.converter.schemas.enable", "true");
        worker.setProperty("value.converter.schemas.enable", "true");
        worker.setProperty("offset.storage.file.filename", dir.resolve("offsets").toString());
        worker.setProperty("offset.flush.interval.ms", "1000");
        worker.setProperty("listeners", "http://127.0.0.1:0");
        // the jars all declare their plugins (ServiceLoader manifests): no class path scan at start
        worker.setProperty("plugin.discovery", "service_load");
        Path workerFile = write(dir.resolve("worker.properties"), worker);
        Properties conn = new Properties();
        conn.putAll(connector);
        Path connectorFile = write(dir.resolve("connector.properties"), conn);

        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(javaBin, "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-cp", classPath(), MAIN, workerFile.toString(), connectorFile.toString()));
        Path log = dir.resolve("connect.log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new ConnectWorker(p, log);
    }

    /** Every jar of the directory {@value #LIB_PROPERTY} names. */
    private static String classPath() throws IOException {
        String lib = System.getProperty(LIB_PROPERTY);
        if (lib == null) {
            throw new IllegalStateException("system property " + LIB_PROPERTY + " is not set: run this test through Maven "
                    + "(module e2e's failsafe sets it to debezium-connect/target/connect-lib)");
        }
        Path dir = Path.of(lib);
        if (!Files.isDirectory(dir)) {
            throw new IllegalStateException(dir + " does not exist: build module debezium-connect first "
                    + "(./mvnw -pl e2e -am verify builds it)");
        }
        try (Stream<Path> jars = Files.list(dir)) {
            return String.join(File.pathSeparator, jars.filter(j -> j.toString().endsWith(".jar")).sorted().map(Path::toString).toList());
        }
    }

    private static Path write(Path file, Properties props) throws IOException {
        StringWriter w = new StringWriter();
        props.store(w, null);
        return Files.writeString(file, w.toString());
    }

    /** Throws, naming the log, if the worker has exited. */
    void checkAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException("the Connect worker exited with " + process.exitValue() + "; see " + log);
        }
    }

    Path log() {
        return log;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(20, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
