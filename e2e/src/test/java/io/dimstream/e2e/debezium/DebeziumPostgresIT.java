package io.dimstream.e2e.debezium;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.service.SupervisedService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.testing.EmbeddedKafkaExtension;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real Debezium PostgreSQL connector (pgoutput, in a Kafka Connect standalone worker of its own
 * release, {@link ConnectWorker}) captures a whole schema of a real PostgreSQL with
 * {@code wal_level=logical} ({@link SourcePostgres}): three tables of different shapes (an integer
 * key with text, numeric and timestamptz; a composite bigint+integer key with a type-1 column and a
 * date; a uuid key with jsonb and boolean), and a fourth created while everything runs (smallint,
 * timestamp, double precision). The workload inserts, updates (some are no-ops, some change a key
 * twice in one transaction, some touch only the type-1 column), deletes and re-inserts over several
 * transactions, and adds a column to one table while running. Every table's history table is then
 * compared whole (business columns, valid_from, valid_to, is_current, is_deleted) with the history
 * {@link ExpectedHistory} builds from the source's audit trail and commit timestamps.
 *
 * <p>dimstream's side is {@link #dimstreamYaml}: one {@code connectors:} entry for the whole
 * connector. The broker creates no topic: Connect creates each table's ({@code topic.creation.default.*})
 * at its first change, dimstream waits for the first and finds the others (the fourth table's while
 * running, with a restart of its pipeline inside the process).
 */
class DebeziumPostgresIT {

    @RegisterExtension
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    /** Debezium's {@code topic.prefix}: the topics are {@code dbzit.public.<table>}. */
    private static final String PREFIX = "dbzit";
    private static final String SLOT = "dimstream_debezium_it";

    static final SourceTable CUSTOMERS = new SourceTable("customers", List.of(col("id", "integer"), col("email", "text"),
            col("city", "text"), col("score", "numeric(10,2)"), col("updated", "timestamptz"), col("segment", "text")),
            List.of("id"), List.of());
    static final SourceTable ORDERS = new SourceTable("orders", List.of(col("order_id", "bigint"), col("line", "integer"),
            col("qty", "integer"), col("note", "text"), col("placed", "date")), List.of("order_id", "line"), List.of("note"));
    static final SourceTable DEVICES = new SourceTable("devices", List.of(col("id", "uuid"), col("attrs", "jsonb"),
            col("active", "boolean"), col("label", "text")), List.of("id"), List.of());
    /** Created while running. */
    static final SourceTable REVIEWS = new SourceTable("reviews", List.of(col("id", "bigint"), col("customer_id", "integer"),
            col("stars", "smallint"), col("body", "text"), col("posted", "timestamp(3)"), col("weight", "double precision")),
            List.of("id"), List.of());
    static final List<SourceTable> TABLES = List.of(CUSTOMERS, ORDERS, DEVICES, REVIEWS);

    @Test
    void everyCapturedTablesHistoryIsTheSourcesAuditTrail(@TempDir Path dir) throws Exception {
        long start = System.nanoTime();
        EmbeddedKafka kafka = KAFKA.get();
        try (SourcePostgres source = SourcePostgres.start(dir.resolve("source-pg"))) {
            for (SourceTable t : List.of(CUSTOMERS, ORDERS, DEVICES)) {
                source.createTable(createTable(t), t.name());
            }
            log(start, "source PostgreSQL up on port " + source.port());
            DimstreamConfig config = DimstreamConfig.parse(dimstreamYaml(kafka.bootstrapServers()), "DebeziumPostgresIT", Map.of());
            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "debezium-postgres-it", 1, Duration.ofHours(1));
            try (ConnectWorker connect = ConnectWorker.start(workerDir(), kafka.bootstrapServers(), connector(source.port()))) {
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
                    connect.checkAlive();
                    return source.slotActive(SLOT);
                });
                log(start, "the connector streams from slot " + SLOT + "; Connect's log: " + connect.log());
                // dimstream starts once a table's topic has a record: the first transaction runs while it waits
                CompletableFuture<Void> first = CompletableFuture.runAsync(() -> firstTransaction(source));
                try (SupervisedService service = SupervisedService.start(config, options, new SimpleMeterRegistry())) {
                first.get(60, TimeUnit.SECONDS);
                log(start, "dimstream started with " + service.current().pipelines().size() + " entities");
                workload(source);
                log(start, "workload committed");
                Map<String, List<Version>> expected = new LinkedHashMap<>();
                try (Connection c = source.connect()) {
                    for (SourceTable t : TABLES) {
                        expected.put(t.name(), ExpectedHistory.of(c, t));
                    }
                }
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                    connect.checkAlive();
                    assertThat(histories()).isEqualTo(expected);
                });
                log(start, "every history equals the audit trail's: " + expected.values().stream().mapToInt(List::size).sum()
                        + " rows in " + expected.size() + " tables:\n" + expected.values().stream().flatMap(List::stream)
                        .map(Version::toString).collect(Collectors.joining("\n")));
                }
            }
        }
    }

    /**
     * dimstream's config for the connector's tables: one {@code connectors:} entry. Every table is
     * typed from its records' schemas (a {@code timestamp(3)} is a timestamp, a {@code numeric(10,2)}
     * a numeric), keyed by its record key; {@code reviews}, created while running, is found when
     * Debezium creates its topic.
     */
    static String dimstreamYaml(String bootstrapServers) {
        return """
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                connectors:
                  - name: shop
                    topic-prefix: %s
                    include: ['public\\..*']
                    table-name: 'debezium_it_{table}'
                    tables: [{match: 'public\\.orders', type1: [note]}]
                    discovery-interval: PT1S
                """.formatted(bootstrapServers, TestPostgres.jdbcUrl(), PREFIX);
    }

    /** The Debezium connector: pgoutput, every table of schema public, no snapshot (the tables are empty). */
    private static Map<String, String> connector(int port) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("name", "shop");
        c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        c.put("tasks.max", "1");
        c.put("plugin.name", "pgoutput");
        c.put("database.hostname", "127.0.0.1");
        c.put("database.port", Integer.toString(port));
        c.put("database.user", "postgres");
        c.put("database.password", "postgres");
        c.put("database.dbname", "postgres");
        c.put("topic.prefix", PREFIX);
        c.put("schema.include.list", "public");
        c.put("slot.name", SLOT);
        c.put("publication.name", SLOT);
        c.put("snapshot.mode", "no_data");
        c.put("topic.creation.default.replication.factor", "1");
        c.put("topic.creation.default.partitions", "1");
        return c;
    }

    /** Several transactions of inserts, updates (no-ops among them), deletes and re-inserts; a column added and a table created. */
    private static final String D1 = "'00000000-0000-0000-0000-000000000001'";
    private static final String D2 = "'00000000-0000-0000-0000-000000000002'";

    /** The first rows of the three tables: their topics appear (Connect creates them), which dimstream waits for. */
    private static void firstTransaction(SourcePostgres source) {
        try {
            source.transaction(
                    "INSERT INTO customers VALUES (1, 'ann@x', 'Oslo', 10.50, now()), (2, 'bob@x', 'Rome', 0, now()),"
                            + " (3, 'cy@x', 'Nice', 99.99, now()), (4, 'di@x', NULL, NULL, now())",
                    "INSERT INTO orders VALUES (100, 1, 2, 'gift', '2025-08-01'), (100, 2, 1, NULL, '2025-08-01'),"
                            + " (101, 1, 5, 'rush', '2025-08-02')",
                    "INSERT INTO devices VALUES (" + D1 + ", '{\"os\": \"linux\", \"ram\": 8}', true, 'build'),"
                            + " (" + D2 + ", '{\"os\": \"mac\"}', false, NULL)");
        } catch (Exception e) {
            throw new IllegalStateException("the first transaction failed: " + e.getMessage(), e);
        }
    }

    private static void workload(SourcePostgres source) throws Exception {
        String d1 = D1;
        String d2 = D2;
        source.transaction(
                "UPDATE customers SET city = 'Bergen', updated = now() WHERE id = 1",
                "UPDATE orders SET qty = 3 WHERE order_id = 100 AND line = 1",
                "UPDATE devices SET attrs = attrs || '{\"ram\": 16}' WHERE id = " + d1);
        // no-op updates: the same values again (10.5 is 10.50 in a numeric(10,2))
        source.transaction(
                "UPDATE customers SET email = email WHERE id = 2",
                "UPDATE customers SET score = 10.5 WHERE id = 1",
                "UPDATE orders SET qty = qty WHERE order_id = 101",
                "UPDATE devices SET active = active WHERE id = " + d2);
        source.transaction(
                "DELETE FROM customers WHERE id = 3",
                "DELETE FROM orders WHERE order_id = 100 AND line = 2",
                "DELETE FROM devices WHERE id = " + d2);
        source.transaction(
                "UPDATE orders SET note = 'gift wrap' WHERE order_id = 100 AND line = 1", // type 1 only: no version
                "UPDATE customers SET score = 12.25 WHERE id = 4",
                "UPDATE customers SET city = NULL WHERE id = 2");
        source.transaction(
                "INSERT INTO customers VALUES (3, 'cy2@x', 'Nice', 99.99, now())",
                "INSERT INTO orders VALUES (100, 2, 1, NULL, '2025-08-01')", // the same values as before its delete
                "INSERT INTO devices VALUES (" + d2 + ", '{\"os\": \"mac\"}', false, NULL)");
        // one key changed twice in one transaction: one instant, the last change counts
        source.transaction(
                "UPDATE customers SET city = 'Paris' WHERE id = 1",
                "UPDATE customers SET city = 'Lyon' WHERE id = 1",
                "UPDATE orders SET qty = 6 WHERE order_id = 101",
                "UPDATE orders SET note = 'rush!' WHERE order_id = 101",
                "UPDATE devices SET label = 'tmp' WHERE id = " + d1,
                "UPDATE devices SET label = 'build' WHERE id = " + d1);
        evolvingWorkload(source);
    }

    /** A column added, a table created, while the connector and dimstream run; and changes using both. */
    private static void evolvingWorkload(SourcePostgres source) throws Exception {
        source.transaction("ALTER TABLE customers ADD COLUMN segment text");
        source.transaction(
                "UPDATE customers SET segment = 'gold' WHERE id = 1",
                "UPDATE customers SET email = 'bob2@x' WHERE id = 2",
                "INSERT INTO customers VALUES (5, 'eve@x', 'Oslo', 1.00, now(), 'silver')",
                "UPDATE customers SET updated = updated WHERE id = 4"); // segment NULL: no version
        source.createTable(createTable(REVIEWS), REVIEWS.name());
        source.transaction(
                "INSERT INTO reviews VALUES (1, 1, 5, 'great', '2025-08-03 10:00:00.123', 0.1),"
                        + " (2, 2, 3, 'ok', '2025-08-03 11:00:00', 1e-7), (3, 5, 1, 'bad', '2025-08-04 09:30:00.5', NULL)");
        source.transaction(
                "UPDATE reviews SET stars = 4, body = 'good' WHERE id = 1",
                "DELETE FROM reviews WHERE id = 3",
                "UPDATE customers SET segment = NULL WHERE id = 1");
        source.transaction(
                "DELETE FROM customers WHERE id = 5",
                "DELETE FROM orders WHERE order_id = 101",
                "UPDATE reviews SET weight = weight WHERE id = 2",
                "INSERT INTO reviews VALUES (3, 5, 2, 'meh', '2025-08-05 08:00:00', 2.5)");
    }

    /** {@code CREATE TABLE} of the table as it starts. */
    private static String createTable(SourceTable t) {
        List<String> columns = new ArrayList<>();
        for (SourceTable.Column c : initialColumns(t)) {
            columns.add(c.name() + " " + c.sqlType());
        }
        columns.add("PRIMARY KEY (" + String.join(", ", t.key()) + ")");
        return "CREATE TABLE public." + t.name() + " (" + String.join(", ", columns) + ")";
    }

    /** The table's columns when it is created: all but {@code customers.segment}, which the workload adds. */
    private static List<SourceTable.Column> initialColumns(SourceTable t) {
        return t == CUSTOMERS ? t.columns().subList(0, t.columns().size() - 1) : t.columns();
    }

    private static Map<String, List<Version>> histories() throws Exception {
        Map<String, List<Version>> out = new LinkedHashMap<>();
        for (SourceTable t : TABLES) {
            out.put(t.name(), HistoryTable.rows(TestPostgres.dataSource(), historyTable(t), t));
        }
        return out;
    }

    /** The worker's files (its properties, offsets and log), kept after the run: {@code target/debezium-postgres-it/connect}. */
    private static Path workerDir() throws IOException {
        Path dir = Path.of("target", "debezium-postgres-it", "connect").toAbsolutePath();
        if (Files.exists(dir)) {
            try (Stream<Path> old = Files.walk(dir)) {
                for (Path p : old.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        return dir;
    }

    private static String topic(SourceTable t) {
        return PREFIX + ".public." + t.name();
    }

    private static String historyTable(SourceTable t) {
        return "debezium_it_" + t.name();
    }

    private static SourceTable.Column col(String name, String type) {
        return new SourceTable.Column(name, type);
    }

    private static void log(long start, String what) {
        System.out.printf("%s [DebeziumPostgresIT +%.1f s] %s%n", Instant.now(), (System.nanoTime() - start) / 1e9, what);
    }
}
