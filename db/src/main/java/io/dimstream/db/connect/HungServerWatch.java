package io.dimstream.db.connect;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.postgresql.Driver;
import org.postgresql.core.BaseConnection;
import org.postgresql.util.HostSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frees threads held by a hung PostgreSQL server without cutting a long statement of a live one.
 *
 * <p>A statement in flight on a server whose processes stopped (SIGSTOP, a hung VM, stuck storage)
 * waits for the session's socket timeout ({@value PgConnector#SESSION_SECONDS} s), which must be
 * long because a legitimate statement may be. A short socket timeout cannot tell the two apart;
 * asking the server can: every {@code every}, for each connection borrowed longer than
 * {@code after}, this opens a NEW connection to the same host (not through the pool, not to the
 * URL's other hosts) and asks {@code SELECT 1} within {@code probe}. A server that answers is
 * working (the long statement goes on); one that does not is hung, and every borrowed connection to
 * it is aborted ({@link Connection#abort}: its socket closed), so the threads in them get a
 * connection failure at once (SQL state 08006), which the pool and the sink treat like a server
 * gone: the pool replaces its connections and a multi-host URL finds the promoted standby.
 *
 * <p>The cost: one short-lived connection per host every {@code every} while some connection is
 * borrowed longer than {@code after}, nothing otherwise.
 */
public final class HungServerWatch extends ForwardingDataSource implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HungServerWatch.class);

    private final Properties probeProps;
    private final Duration after;
    private final ScheduledExecutorService scheduler;
    private final Map<Connection, Long> borrowed = new ConcurrentHashMap<>();

    /**
     * @param pool     the pool whose borrowed connections are watched
     * @param url      the pool's URL (its database, user, password and TLS settings are the probe's)
     * @param user     null when the URL carries it
     * @param password null when the URL carries it
     */
    public HungServerWatch(DataSource pool, String url, String user, String password, Duration after, Duration every, Duration probe) {
        super(pool);
        this.after = after;
        Properties p = Driver.parseURL(url, null);
        if (p == null) {
            throw new IllegalArgumentException("not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)");
        }
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        String seconds = Long.toString(Math.max(1, probe.toSeconds()));
        p.setProperty("connectTimeout", seconds);
        p.setProperty("loginTimeout", seconds);
        p.setProperty("socketTimeout", seconds);
        p.setProperty("targetServerType", "any");
        this.probeProps = p;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dimstream-pg-watch");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleWithFixedDelay(this::check, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** One round: probe the hosts of connections borrowed longer than {@code after}, abort those of hosts that do not answer. */
    void check() {
        long now = System.nanoTime();
        Map<String, List<Connection>> byHost = new HashMap<>();
        borrowed.forEach((c, since) -> {
            if (now - since >= after.toNanos()) {
                host(c).ifPresent(h -> byHost.computeIfAbsent(h.getHost() + ":" + h.getPort(), k -> new ArrayList<>()).add(c));
            }
        });
        byHost.forEach((host, conns) -> {
            String why = probe(host);
            if (why == null) {
                return;
            }
            LOG.warn("PostgreSQL at {} does not answer a new connection ({}) while {} connection(s) have waited on it for more than {} s: "
                    + "aborting them, the pool reconnects (a multi-host URL finds the primary)", host, why, conns.size(), after.toSeconds());
            for (Connection c : conns) {
                try {
                    c.unwrap(BaseConnection.class).abort(Runnable::run);
                } catch (SQLException | RuntimeException e) {
                    LOG.warn("aborting a connection to {} failed: {}", host, e.toString());
                }
            }
        });
    }

    private static Optional<HostSpec> host(Connection c) {
        try {
            return Optional.of(c.unwrap(BaseConnection.class).getQueryExecutor().getHostSpec());
        } catch (SQLException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Null when {@code host} answers {@code SELECT 1} on a new connection within the probe's bounds, else why not. */
    private String probe(String host) {
        Properties p = new Properties();
        p.putAll(probeProps);
        String url = "jdbc:postgresql://" + host + "/" + probeProps.getProperty("PGDBNAME", "");
        try (Connection c = new Driver().connect(url, p); Statement s = c.createStatement()) {
            s.execute("SELECT 1");
            return null;
        } catch (SQLException | RuntimeException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    @Override
    protected Connection wrap(Connection c) {
        borrowed.put(c, System.nanoTime());
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, new Handler(c));
    }

    /** Passes everything to the pooled connection; {@code close} also stops watching it. */
    private final class Handler implements InvocationHandler {
        private final Connection c;

        Handler(Connection c) {
            this.c = c;
        }

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            if (m.getName().equals("close") && m.getParameterCount() == 0) {
                borrowed.remove(c);
            }
            try {
                return m.invoke(c, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
