package io.dimstream.app.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.write.ApplyResult;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The events of erased keys a committed batch dropped reach Prometheus as dimstream_events_erased_total{entity}. */
class SinkMetricsErasedTest {

    @Test
    void eventsOfErasedKeysAreCountedPerEntity() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        SinkMetrics metrics = new SinkMetrics(registry);

        metrics.batchCommitted("customer", 5, Duration.ofMillis(3), ApplyResult.builder().received(5).newKeys(2).erased(3).rowsInserted(2).build(), 0);
        metrics.batchCommitted("customer", 2, Duration.ofMillis(3), ApplyResult.builder().received(2).erased(2).build(), 0);
        metrics.batchCommitted("order", 1, Duration.ofMillis(3), ApplyResult.builder().received(1).newKeys(1).rowsInserted(1).build(), 0);

        assertThat(registry.scrape().lines().filter(l -> l.startsWith("dimstream_events_erased_total")).toList()).isEqualTo(List.of(
                "dimstream_events_erased_total{entity=\"customer\"} 5.0",
                "dimstream_events_erased_total{entity=\"order\"} 0.0"));
    }
}
