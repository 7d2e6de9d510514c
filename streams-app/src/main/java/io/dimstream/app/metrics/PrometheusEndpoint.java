package io.dimstream.app.metrics;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The Prometheus scrape of the service's meters. The admin UI serves {@link #scrape()} with
 * {@link #CONTENT_TYPE} at {@code /metrics}; nothing here knows HTTP.
 */
public final class PrometheusEndpoint {

    /** The Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final PrometheusMeterRegistry registry;

    public PrometheusEndpoint(PrometheusMeterRegistry registry) {
        this.registry = registry;
    }

    /** An endpoint over a new registry with Micrometer's defaults. */
    public static PrometheusEndpoint create() {
        return new PrometheusEndpoint(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
    }

    /** Register meters here (pass it to {@link SinkMetrics}). */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Every meter in the text exposition format. */
    public String scrape() {
        return registry.scrape();
    }
}
