package io.dimstream.app.metrics;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * Serves {@code GET /metrics} in the Prometheus text format for {@code dimstream run} and
 * {@code dimstream demo}.
 * The JDK's built-in HTTP server is enough for one scrape endpoint; the admin UI (Javalin) will
 * serve the same registry beside its pages.
 */
public final class MetricsHttpServer implements AutoCloseable {

    /** The Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;

    private MetricsHttpServer(HttpServer server) {
        this.server = server;
    }

    public static MetricsHttpServer start(String host, int port, PrometheusMeterRegistry registry) {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
            server.createContext("/metrics", exchange -> {
                try (exchange) {
                    if (!"GET".equals(exchange.getRequestMethod())) {
                        exchange.sendResponseHeaders(405, -1);
                        return;
                    }
                    byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
                    exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
                    exchange.sendResponseHeaders(200, body.length);
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(body);
                    }
                }
            });
            server.start();
            return new MetricsHttpServer(server);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serve metrics on " + host + ":" + port + ": " + e.getMessage(), e);
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
