package io.dimstream.app.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.avro.Schema;

/**
 * A Confluent-compatible schema registry answering {@code GET /schemas/ids/{id}} for the schemas it
 * was given (404 for other ids), that a test can take down the ways a real one goes down: answering
 * an error status ({@link #fail}) or accepting requests and never answering ({@link #hang}, as a hung
 * host or a stuck load balancer), until {@link #recover}. Each request is served on a thread of its
 * own, so a hung request does not hold the others.
 */
public final class OutageRegistry implements AutoCloseable {

    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private sealed interface Mode permits Up, Failing, Hanging {
    }

    private record Up() implements Mode {
    }

    private record Failing(int status) implements Mode {
    }

    private record Hanging() implements Mode {
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final Map<Integer, String> bodies = new ConcurrentHashMap<>();
    private final AtomicReference<Mode> mode = new AtomicReference<>(new Up());
    private final AtomicInteger refused = new AtomicInteger();
    private final Object recovered = new Object();

    /** @param schemas the schemas it knows, by id */
    public OutageRegistry(Map<Integer, Schema> schemas) throws IOException {
        ObjectMapper json = new ObjectMapper();
        for (var e : schemas.entrySet()) {
            bodies.put(e.getKey(), "{\"schema\":" + json.writeValueAsString(e.getValue().toString()) + "}");
        }
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(threads);
        server.createContext("/schemas/ids/", exchange -> {
            String id = exchange.getRequestURI().getPath().substring("/schemas/ids/".length());
            awaitUnlessHanging();
            int status;
            String answer;
            if (mode.get() instanceof Failing f) {
                refused.incrementAndGet();
                status = f.status();
                answer = "{\"error_code\":" + f.status() + "02,\"message\":\"Schema registry is restarting\"}";
            } else if (bodies.containsKey(parse(id))) {
                status = 200;
                answer = bodies.get(parse(id));
            } else {
                status = 404;
                answer = "{\"error_code\":40403,\"message\":\"Schema " + id + " not found\"}";
            }
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    private static int parse(String id) {
        try {
            return Integer.parseInt(id);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Holds a request while the registry hangs; it is answered once the registry recovers or fails. */
    private void awaitUnlessHanging() {
        synchronized (recovered) {
            while (mode.get() instanceof Hanging) {
                try {
                    recovered.wait();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Every request answered with {@code status} (500, 503...) from now on. */
    public void fail(int status) {
        setMode(new Failing(status));
    }

    /** Every request accepted and never answered from now on. */
    public void hang() {
        setMode(new Hanging());
    }

    /** Answers again, the held requests included. */
    public void recover() {
        setMode(new Up());
    }

    /** Requests answered with an error status so far. */
    public int refused() {
        return refused.get();
    }

    private void setMode(Mode m) {
        synchronized (recovered) {
            mode.set(m);
            recovered.notifyAll();
        }
    }

    @Override
    public void close() {
        recover();
        server.stop(0);
        threads.shutdownNow();
    }
}
