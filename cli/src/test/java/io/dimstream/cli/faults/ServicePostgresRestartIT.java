package io.dimstream.cli.faults;

import io.dimstream.app.testing.ServiceHarness;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ExpectedRow;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL interrupted under a running {@code dimstream run} (a child JVM) while a generated
 * feed flows: every session of the service is terminated and the database refuses new
 * connections for a few seconds, twice. The server itself is the machine's and is never
 * restarted; to the service this is what a restart looks like (connections cut, then refused).
 * The service keeps running, and the table ends equal, row by row, to the reference model of
 * every valid event (DESIGN section 5, "PostgreSQL restart").
 */
class ServicePostgresRestartIT {

    private static final Duration OUTAGE = Duration.ofSeconds(5);

    @Test
    void aPostgresOutageUnderTheRunningServiceLosesAndDoublesNothing(@TempDir Path dir) throws Exception {
        try (ServiceHarness h = ServiceHarness.start(dir, "pg_restart_it")) {
            List<CustomerFeed.FeedRecord> feed = ServiceHarness.feed(11, 60, 2400);
            List<ExpectedRow> expected = h.expected(feed);
            String database = databaseName(TestPostgres.jdbcUrl());
            String serverUrl = TestPostgres.jdbcUrl().replaceFirst("/" + database + "(\\?|$)", "/postgres$1");

            Process service = h.startService("data");
            h.produce(feed.subList(0, 600));
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
                assertThat(service.isAlive()).as("the service is running").isTrue();
                return !h.rows().isEmpty();
            });

            // 1: cut while the second chunk flows; records keep arriving during the outage
            h.produce(feed.subList(600, 1000));
            outage(serverUrl, database, () -> h.produce(feed.subList(1000, 1400)));
            // back: the service has connected again before the next cut
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
                assertThat(service.isAlive()).as("the service is running").isTrue();
                return sessions(serverUrl, database) > 0;
            });

            // 2: again, with more records flowing before and during it
            h.produce(feed.subList(1400, 1900));
            outage(serverUrl, database, () -> h.produce(feed.subList(1900, 2200)));
            h.produce(feed.subList(2200, 2400));

            ServiceHarness.log("awaiting the reference model's table");
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(service.isAlive()).as("the service is running").isTrue();
                assertThat(h.rows()).isEqualTo(expected);
            });
            ServiceHarness.log("the table equals the reference model's");
        }
    }

    /**
     * Refuses new connections to {@code database} and terminates this role's sessions on it, runs
     * {@code during}, keeps the database closed for {@link #OUTAGE}, then opens it again (always).
     * Runs from a connection to the {@code postgres} database: the role owns the test database
     * (ALTER DATABASE) and may terminate its own sessions without being a superuser.
     */
    private static void outage(String serverUrl, String database, Runnable during) throws Exception {
        try (Connection c = DriverManager.getConnection(serverUrl); Statement s = c.createStatement()) {
            s.execute("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS false");
            try {
                int terminated = 0;
                try (PreparedStatement ps = c.prepareStatement("""
                        SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                        WHERE datname = ? AND usename = current_user AND pid <> pg_backend_pid()""")) {
                    ps.setString(1, database);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            terminated += rs.getBoolean(1) ? 1 : 0;
                        }
                    }
                }
                assertThat(terminated).as("sessions of the service terminated").isPositive();
                ServiceHarness.log("PostgreSQL outage: " + terminated + " sessions terminated, connections refused");
                during.run();
                Thread.sleep(OUTAGE.toMillis()); // the deliberate outage window
            } finally {
                s.execute("ALTER DATABASE " + database + " WITH ALLOW_CONNECTIONS true");
                ServiceHarness.log("PostgreSQL accepts connections again");
            }
        }
    }

    /** This role's sessions on {@code database}, counted from the {@code postgres} database. */
    private static int sessions(String serverUrl, String database) throws Exception {
        try (Connection c = DriverManager.getConnection(serverUrl);
             PreparedStatement ps = c.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE datname = ? AND usename = current_user")) {
            ps.setString(1, database);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private static String databaseName(String jdbcUrl) {
        int q = jdbcUrl.indexOf('?');
        String base = q < 0 ? jdbcUrl : jdbcUrl.substring(0, q);
        return base.substring(base.lastIndexOf('/') + 1);
    }
}
