package io.dimstream.cli;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.kafka.KafkaWait;
import io.dimstream.app.snapshot.SnapshotPublisher;
import io.dimstream.config.ConfigException;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.KafkaConfig;
import io.dimstream.db.entity.ColumnType;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code dimstream publish-snapshot}: one slice of a snapshot feed, then its end-of-slice markers. */
@Command(name = "publish-snapshot", mixinStandardHelpOptions = true,
        description = {"Publishes one slice of a mode: snapshot entity to its source topic.",
                "Each row is stamped with --at in the entity's snapshot-time field and keyed by its business key; then an "
                        + "end-of-slice marker goes to every partition. Keys absent from the slice are deleted at --at.",
                "The whole file is checked first: with any bad line nothing is published.",
                "Exit 0 when published; 2 for a bad config, entity, instant or input (nothing sent); 1 when Kafka failed "
                        + "part-way (a slice without all its markers deletes nothing: publish it again).",
                "Exit 69 when Kafka did not answer within --kafka-wait (nothing sent)."})
final class PublishSnapshotCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--config", required = true, paramLabel = "FILE", description = "the dimstream YAML config")
    Path config;

    @Option(names = "--entity", required = true, paramLabel = "NAME", description = "a mode: snapshot entity of the config")
    String entity;

    @Option(names = "--at", required = true, paramLabel = "INSTANT", description = "the slice's instant, ISO-8601 with offset (2025-08-01T00:00:00Z)")
    String at;

    @Option(names = "--input", required = true, paramLabel = "ROWS.jsonl", description = "the slice: one JSON object of the row's columns per line")
    Path input;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT",
            description = "the Kafka cluster (default: kafka.bootstrap-servers of the config; required when that is \"embedded\")")
    String bootstrapServers;

    @Option(names = KafkaCheck.OPTION, paramLabel = "DURATION|forever", defaultValue = "PT30S",
            converter = KafkaCheck.WaitConverter.class,
            description = "How long to keep trying when Kafka does not answer: the first failure is printed with what was "
                    + "tried and what to check, then Kafka is tried again every 5 s with a line each, until it answers or "
                    + "DURATION (ISO-8601) has passed; then the command exits with status " + CliFailure.KAFKA_UNREACHABLE
                    + ", nothing sent. PT0S exits after the first try, forever never gives up. Default: ${DEFAULT-VALUE}.")
    KafkaWait kafkaWait;

    @Override
    public Integer call() throws Exception {
        return CommandSupport.run(spec, () -> {
            DimstreamConfig cfg = CommandSupport.loadResolvedConfig(config, spec.commandLine().getErr());
            EntityConfig e;
            try {
                e = cfg.entity(entity);
            } catch (ConfigException ex) {
                throw new CliFailure(CliFailure.USAGE, "--entity: " + ex.getMessage(), ex);
            }
            if (!e.snapshot()) {
                throw new CliFailure(CliFailure.USAGE, "--entity: entity " + entity + " is not mode: snapshot", null);
            }
            Instant slice = ColumnType.parseInstant(at).orElseThrow(() ->
                    new CliFailure(CliFailure.USAGE, "--at: \"" + at + "\" is not an ISO-8601 instant with offset (e.g. 2025-08-01T00:00:00Z)", null));
            String bootstrap = bootstrapServers != null ? bootstrapServers
                    : cfg.kafka().map(KafkaConfig::bootstrapServers).orElse(null);
            if (bootstrap == null || KafkaConfig.EMBEDDED.equals(bootstrap)) {
                throw new CliFailure(CliFailure.USAGE, "--bootstrap-servers: required (the config's kafka.bootstrap-servers is "
                        + (bootstrap == null ? "not set" : "\"embedded\", a broker inside a running dimstream") + ")", null);
            }
            List<SnapshotPublisher.Row> rows;
            try (BufferedReader in = CommandSupport.openInput(input)) {
                rows = SnapshotPublisher.read(in, e, slice);
            } catch (SnapshotPublisher.BadSliceException bad) {
                PrintWriter out = spec.commandLine().getOut();
                bad.problems().forEach(out::println);
                out.flush();
                throw new CliFailure(CliFailure.USAGE, input + ": " + bad.problems().size() + " bad line(s), nothing published", bad);
            } catch (IOException io) {
                throw new CliFailure(CliFailure.USAGE, "cannot read " + input + ": " + io.getMessage(), io);
            }
            SnapshotPublisher.Published done;
            Map<String, String> client = cfg.kafka().map(KafkaConfig::client).orElse(Map.of());
            List<String> clientProblems = KafkaClients.problems(client);
            if (!clientProblems.isEmpty()) {
                throw new CliFailure(CliFailure.USAGE, String.join("; ", clientProblems), null);
            }
            KafkaClients clients = new KafkaClients(bootstrap, client);
            KafkaCheck.await(spec, clients, bootstrapServers != null ? "--bootstrap-servers" : "kafka.bootstrap-servers", kafkaWait,
                    "nothing was published");
            try (KafkaProducer<byte[], byte[]> producer = SnapshotPublisher.producer(clients)) {
                done = SnapshotPublisher.publish(producer, e.topic(), e.name(), slice, rows);
            } catch (ExecutionException | KafkaException ex) {
                Throwable cause = ex instanceof ExecutionException && ex.getCause() != null ? ex.getCause() : ex;
                throw new CliFailure(CliFailure.FAILED, "publishing to " + e.topic() + " failed: " + cause
                        + " (a slice without all its end-of-slice markers deletes nothing: publish it again)", ex);
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println("published " + done.rows() + " rows of slice " + ColumnType.CANONICAL_TIMESTAMP.format(done.slice()) + " to "
                    + done.topic() + " (" + done.rowsPerPartition().entrySet().stream().map(x -> "partition " + x.getKey() + ": " + x.getValue())
                    .collect(Collectors.joining(", ")) + "), then an end-of-slice marker to each of its "
                    + done.rowsPerPartition().size() + " partitions");
            out.flush();
            return 0;
        });
    }
}
