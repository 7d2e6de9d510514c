package io.dimstream.app.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.dimstream.app.health.HealthMonitor;
import io.dimstream.app.health.HealthReport;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The service's own HTTP port, for {@code dimstream run} and {@code dimstream demo}:
 * {@code GET /metrics} in the Prometheus text format, and {@code GET /health/live} and
 * {@code GET /health/ready} ({@link HealthMonitor}): 200 when up, 503 when down, a JSON body with
 * each check either way. The JDK's built-in HTTP server is enough for a scrape and two probes.
 */
public final class MetricsHttpServer implements AutoCloseable {

    /** The Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;

    private MetricsHttpServer(HttpServer server) {
        this.server = server;
    }

    public static MetricsHttpServer start(String host, int port, PrometheusMeterRegistry registry) {
        return start(host, port, registry, null);
    }

    /** @param health the health endpoints' source, asked at each request (a service restarted inside the process); null serves none */
    public static MetricsHttpServer start(String host, int port, PrometheusMeterRegistry registry, Supplier<HealthMonitor> health) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
            server.createContext("/metrics", exchange -> {
                try (exchange) {
                    if (allowed(exchange)) {
                        send(exchange, 200, CONTENT_TYPE, registry.scrape().getBytes(StandardCharsets.UTF_8));
                    }
                }
            });
            if (health != null) {
                server.createContext("/health/live", exchange -> report(exchange, () -> health.get().live()));
                server.createContext("/health/ready", exchange -> report(exchange, () -> health.get().ready()));
            }
            server.start();
            return new MetricsHttpServer(server);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    private static void report(HttpExchange exchange, Supplier<HealthReport> what) throws IOException {
        try (exchange) {
            if (!allowed(exchange)) {
                return;
            }
            HealthReport r = what.get();
            send(exchange, r.up() ? 200 : 503, "application/json", JSON.writeValueAsBytes(r.toJson()));
        }
    }

    private static boolean allowed(HttpExchange exchange) throws IOException {
        if (!"GET".equals(exchange.getRequestMethod())) {
            exchange.sendResponseHeaders(405, -1);
            return false;
        }
        return true;
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
