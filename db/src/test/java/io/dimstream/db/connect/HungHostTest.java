package io.dimstream.db.connect;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.postgresql.Driver;

/**
 * {@link Databases#open} against a hung host: a socket that accepts TCP connections and never
 * answers, as a PostgreSQL whose processes were stopped (SIGSTOP) does. Before the pool had login
 * bounds, pgjdbc waited forever in the startup exchange and a multi-host URL never reached its
 * second host.
 */
class HungHostTest {

    private ServerSocket hung;
    private final List<Socket> accepted = new ArrayList<>();
    private Thread acceptor;

    @BeforeEach
    void hungHost() throws IOException {
        hung = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        acceptor = new Thread(() -> {
            try {
                while (true) {
                    Socket s = hung.accept();
                    synchronized (accepted) {
                        accepted.add(s);
                    }
                }
            } catch (IOException closed) {
                // the test is over
            }
        }, "hung-host");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    @AfterEach
    void close() throws IOException {
        hung.close();
        synchronized (accepted) {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }

    /** The test database's URL with the hung host first: {@code jdbc:postgresql://hung,real/db?targetServerType=primary&...}. */
    private String multiHost(String extra) {
        Properties p = Driver.parseURL(TestPostgres.jdbcUrl(), null);
        return "jdbc:postgresql://127.0.0.1:" + hung.getLocalPort() + "," + p.getProperty("PGHOST") + ":" + p.getProperty("PGPORT")
                + "/" + p.getProperty("PGDBNAME") + "?targetServerType=primary&user=" + p.getProperty("user")
                + "&password=" + p.getProperty("password") + extra;
    }

    private static List<Object> whereConnected(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT current_database(), pg_is_in_recovery()")) {
            rs.next();
            return List.of(rs.getString(1), rs.getBoolean(2));
        }
    }

    @Test
    void aMultiHostUrlGetsPastAHungFirstHostToTheLiveOneWithinTheLoginBounds() throws SQLException {
        String db = Driver.parseURL(TestPostgres.jdbcUrl(), null).getProperty("PGDBNAME");
        long start = System.nanoTime();
        try (Databases.Handle h = Databases.open(multiHost(""), null, null, 2); Connection c = h.dataSource().getConnection()) {
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            assertThat(whereConnected(c)).isEqualTo(List.of(db, false));
            // one login read bound spent on the hung host, then the live one; well inside 30 s
            assertThat(took).isBetween(Duration.ofSeconds(PgConnector.LOGIN_READ_SECONDS - 1), Duration.ofSeconds(25));
            // the session runs with the generous bound, not the login one
            assertThat(c.getNetworkTimeout()).isEqualTo(PgConnector.SESSION_SECONDS * 1000);
        }
        synchronized (accepted) {
            assertThat(accepted).isNotEmpty();
        }
    }

    @Test
    void theUrlsOwnSocketTimeoutWinsForTheSession() throws SQLException {
        try (Databases.Handle h = Databases.open(TestPostgres.jdbcUrl() + "&socketTimeout=42", null, null, 1);
             Connection c = h.dataSource().getConnection()) {
            assertThat(c.getNetworkTimeout()).isEqualTo(42_000);
        }
    }

    @Test
    void connectionsAreMadeWithBoundedConnectLoginAndLoginReadAndTcpKeepalive() {
        Properties p = new PgConnector(TestPostgres.jdbcUrl(), "u", "secret", Duration.ofSeconds(300)).properties();
        Properties expected = new Properties();
        expected.setProperty("connectTimeout", "10");
        expected.setProperty("socketTimeout", "10");
        expected.setProperty("loginTimeout", "30");
        expected.setProperty("tcpKeepAlive", "true");
        expected.setProperty("user", "u");
        assertThat(p).isEqualTo(expected);
    }
}
