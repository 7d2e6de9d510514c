package io.dimstream.schemas.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tiny Confluent-compatible schema registry on 127.0.0.1 (an ephemeral port), for tests: the
 * endpoints {@link HttpSchemaRegistryClient} uses, ids from 100, and a log of every request it saw.
 */
public final class FakeRegistryServer implements AutoCloseable {

    /** One request as the server saw it. */
    public record Seen(String method, String path, String contentType, String authorization, String body) {
    }

    private final ObjectMapper json = new ObjectMapper();
    private final HttpServer server;
    private final String requiredAuthorization;
    private final Map<Integer, String> schemaById = new LinkedHashMap<>();
    private final Map<String, List<Integer>> idsBySubject = new LinkedHashMap<>();
    private final List<Seen> seen = new ArrayList<>();
    private int nextId = 100;
    /** When not 0, every request is answered with this status (an outage), after being logged. */
    private int outageStatus;

    /** @param requiredAuthorization the Authorization header every request must carry, or null for none */
    public FakeRegistryServer(String requiredAuthorization) throws IOException {
        this.requiredAuthorization = requiredAuthorization;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public synchronized List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** Puts a schema in place with a chosen id, as if another producer had registered it. */
    synchronized void preload(String subject, int id, String schemaText) {
        schemaById.put(id, schemaText);
        idsBySubject.computeIfAbsent(subject, s -> new ArrayList<>()).add(id);
    }

    /** From now on answers every request with {@code status} and a JSON error body, until {@link #recover()}. */
    public synchronized void failWith(int status) {
        outageStatus = status;
    }

    /** Ends {@link #failWith}. */
    public synchronized void recover() {
        outageStatus = 0;
    }

    @Override
    public void close() {
        server.stop(0);
    }

    private synchronized void handle(HttpExchange exchange) throws IOException {
        String method = exchange.getRequestMethod();
        String rawPath = exchange.getRequestURI().getRawPath();
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        String authorization = exchange.getRequestHeaders().getFirst("Authorization");
        seen.add(new Seen(method, rawPath, exchange.getRequestHeaders().getFirst("Content-Type"), authorization, body));

        if (outageStatus != 0) {
            respond(exchange, outageStatus, "{\"error_code\":" + outageStatus + ",\"message\":\"outage\"}");
            return;
        }
        if (requiredAuthorization != null && !requiredAuthorization.equals(authorization)) {
            respond(exchange, 401, "{\"error_code\":401,\"message\":\"Unauthorized\"}");
            return;
        }
        List<String> parts = new ArrayList<>();
        for (String part : rawPath.substring(1).split("/")) {
            parts.add(URLDecoder.decode(part, StandardCharsets.UTF_8));
        }
        if (method.equals("POST") && parts.size() == 3 && parts.get(0).equals("subjects") && parts.get(2).equals("versions")) {
            String schema = json.readTree(body).get("schema").asText();
            Integer id = idOf(schema);
            if (id == null) {
                id = nextId++;
                schemaById.put(id, schema);
            }
            List<Integer> versions = idsBySubject.computeIfAbsent(parts.get(1), s -> new ArrayList<>());
            if (!versions.contains(id)) {
                versions.add(id);
            }
            respond(exchange, 200, "{\"id\":" + id + "}");
        } else if (method.equals("POST") && parts.size() == 2 && parts.get(0).equals("subjects")) {
            String schema = json.readTree(body).get("schema").asText();
            Integer id = idOf(schema);
            List<Integer> versions = idsBySubject.getOrDefault(parts.get(1), List.of());
            if (id == null || !versions.contains(id)) {
                respond(exchange, 404, "{\"error_code\":40403,\"message\":\"Schema not found\"}");
            } else {
                respond(exchange, 200, version(parts.get(1), versions.indexOf(id) + 1, id));
            }
        } else if (method.equals("GET") && parts.size() == 3 && parts.get(0).equals("schemas") && parts.get(1).equals("ids")) {
            int id = Integer.parseInt(parts.get(2));
            String schema = schemaById.get(id);
            if (schema == null) {
                respond(exchange, 404, "{\"error_code\":40403,\"message\":\"Schema " + id + " not found\"}");
            } else {
                respond(exchange, 200, json.writeValueAsString(Map.of("schema", schema)));
            }
        } else if (method.equals("GET") && parts.size() == 4 && parts.get(0).equals("subjects") && parts.get(3).equals("latest")) {
            List<Integer> versions = idsBySubject.get(parts.get(1));
            if (versions == null) {
                respond(exchange, 404, "{\"error_code\":40401,\"message\":\"Subject '" + parts.get(1) + "' not found.\"}");
            } else {
                respond(exchange, 200, version(parts.get(1), versions.size(), versions.get(versions.size() - 1)));
            }
        } else {
            respond(exchange, 404, "{\"error_code\":404,\"message\":\"HTTP 404 Not Found\"}");
        }
    }

    private Integer idOf(String schema) {
        return schemaById.entrySet().stream().filter(e -> e.getValue().equals(schema))
                .map(Map.Entry::getKey).findFirst().orElse(null);
    }

    private String version(String subject, int version, int id) throws IOException {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("subject", subject);
        answer.put("version", version);
        answer.put("id", id);
        answer.put("schema", schemaById.get(id));
        return json.writeValueAsString(answer);
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
