package io.dimstream.app.connect;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.ConnectorConfig;
import io.dimstream.db.schema.ConnectorTables;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Looks for tables new to the config's connectors every {@code discovery-interval} (the shortest of
 * the connectors'), on a thread of its own, and hands the tables found to {@code onFound} (on that
 * thread: the next look waits until it returns). A look that fails (the broker or the database
 * away) is logged and tried again at the next interval.
 */
public final class ConnectorWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConnectorWatch.class);

    private final ScheduledExecutorService executor;

    private ConnectorWatch(ScheduledExecutorService executor) {
        this.executor = executor;
    }

    /**
     * Starts the watch; null when the config has no connector.
     *
     * @param ds the database to record the tables in, asked for at each look (the service's pool changes on a restart)
     */
    public static ConnectorWatch start(DimstreamConfig config, KafkaClients clients, Supplier<DataSource> ds,
                                       Consumer<List<ConnectorTables.Found>> onFound) {
        if (config.connectors().isEmpty()) {
            return null;
        }
        Duration every = config.connectors().stream().map(ConnectorConfig::discoveryInterval).min(Duration::compareTo).orElseThrow();
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dimstream-connector-watch");
            t.setDaemon(true);
            return t;
        });
        ConnectorDiscovery discovery = new ConnectorDiscovery(clients, ds);
        executor.scheduleWithFixedDelay(() -> {
            try {
                List<ConnectorTables.Found> found = discovery.findNew(config);
                if (!found.isEmpty()) {
                    onFound.accept(found);
                }
            } catch (Exception e) {
                LOG.warn("looking for the connectors' new tables failed (tried again in {}): {}", every, e.getMessage(), e);
            }
        }, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return new ConnectorWatch(executor);
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
