package io.dimstream.schemas.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * A client of a Confluent-compatible schema registry over HTTP(S), using {@link HttpClient}.
 *
 * <p>Endpoints used: {@code POST /subjects/{subject}/versions} (register), {@code POST /subjects/{subject}}
 * (look up without registering), {@code GET /schemas/ids/{id}} and {@code GET /subjects/{subject}/versions/latest}.
 * Requests carry {@code application/vnd.schemaregistry.v1+json}; optional HTTP basic auth from a
 * {@code "user:password"} string (the {@code basic.auth.user.info} setting), which never appears in a message.
 *
 * <p>Caching: schemas by id, and ids by (subject, schema), are kept in this client's
 * {@link ConcurrentHashMap}s for ever, because a registry never changes what an id means. The latest
 * version of a subject is never cached. Two threads missing the same entry at once may both ask the
 * registry; the answers are equal, so that is harmless, and no lock is held during a request.
 *
 * <p>Failures: an unreachable registry, a timeout, a 5xx, 408 or 429 answer, and a refusal of the
 * credentials (401, 403) are {@link SchemaRegistryUnavailableException}s: they say nothing about the
 * schema asked for and may pass (callers retry). A 404 for an id is an {@link UnknownSchemaIdException};
 * other answers are plain {@link SchemaRegistryException}s.
 *
 * <p>Timeouts: {@value #CONNECT_TIMEOUT_SECONDS} s to connect, {@value #REQUEST_TIMEOUT_SECONDS} s per request. A
 * registry answers a schema lookup in milliseconds; a request that takes seconds means it is down or
 * overloaded, and the deserializer's retries (which repeat the request with backoff for a bounded time)
 * do better with short attempts than with one long wait on a stream thread.
 */
public final class HttpSchemaRegistryClient implements SchemaRegistryClient {

    public static final int CONNECT_TIMEOUT_SECONDS = 3;
    public static final int REQUEST_TIMEOUT_SECONDS = 5;

    static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final String ACCEPT =
            "application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json; qs=0.9, application/json; qs=0.5";
    private static final int MAX_BODY_IN_MESSAGE = 1000;

    private final String baseUrl;
    private final Optional<String> authorization;
    private final Duration requestTimeout;
    private final HttpClient http;
    private final ObjectMapper json = new ObjectMapper();
    private final Map<Integer, Schema> schemaById = new ConcurrentHashMap<>();
    private final Map<SubjectSchema, Integer> idBySubjectSchema = new ConcurrentHashMap<>();

    /**
     * @param url               {@code http://host:port} or {@code https://...}, optionally with a path prefix;
     *                          no credentials in it
     * @param basicAuthUserInfo {@code "user:password"} for HTTP basic auth, or {@code null} for none
     */
    public HttpSchemaRegistryClient(String url, String basicAuthUserInfo) {
        this(url, basicAuthUserInfo, Duration.ofSeconds(CONNECT_TIMEOUT_SECONDS),
                Duration.ofSeconds(REQUEST_TIMEOUT_SECONDS));
    }

    HttpSchemaRegistryClient(String url, String basicAuthUserInfo, Duration connectTimeout, Duration requestTimeout) {
        this.baseUrl = checkedBaseUrl(url);
        this.authorization = Optional.ofNullable(basicAuthUserInfo).map(HttpSchemaRegistryClient::basicAuthHeader);
        this.requestTimeout = requestTimeout;
        this.http = HttpClient.newBuilder().connectTimeout(connectTimeout).build();
    }

    private static String checkedBaseUrl(String url) {
        Objects.requireNonNull(url, "url");
        URI uri;
        try {
            uri = URI.create(url.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a URL: " + url + " (" + e.getMessage() + ")", e);
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("not an http(s) URL: " + url);
        }
        if (uri.getHost() == null) {
            throw new IllegalArgumentException("no host in URL: " + url);
        }
        if (uri.getRawUserInfo() != null) {
            throw new IllegalArgumentException(
                    "credentials in the schema registry URL are not supported; give them in basic.auth.user.info");
        }
        String text = uri.toString();
        return text.endsWith("/") ? text.substring(0, text.length() - 1) : text;
    }

    private static String basicAuthHeader(String userInfo) {
        if (userInfo.indexOf(':') < 0) {
            throw new IllegalArgumentException("basic.auth.user.info must be \"user:password\" (no ':' found)");
        }
        return "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8));
    }

    /** The registry's base URL, as used in messages. */
    public String baseUrl() {
        return baseUrl;
    }

    @Override
    public int register(String subject, Schema schema) {
        SubjectSchema key = new SubjectSchema(subject, schema);
        Integer cached = idBySubjectSchema.get(key);
        if (cached != null) {
            return cached;
        }
        String path = "/subjects/" + pathSegment(subject) + "/versions";
        Response response = send("POST", path, schemaBody(schema));
        if (!response.ok()) {
            throw response.failure("cannot register schema under subject " + subject + " " + response.describe());
        }
        int id = requiredInt(response, "POST " + path, "id");
        idBySubjectSchema.putIfAbsent(key, id);
        schemaById.putIfAbsent(id, schema);
        return id;
    }

    @Override
    public OptionalInt lookup(String subject, Schema schema) {
        SubjectSchema key = new SubjectSchema(subject, schema);
        Integer cached = idBySubjectSchema.get(key);
        if (cached != null) {
            return OptionalInt.of(cached);
        }
        String path = "/subjects/" + pathSegment(subject);
        Response response = send("POST", path, schemaBody(schema));
        if (response.status() == 404) {
            return OptionalInt.empty();
        }
        if (!response.ok()) {
            throw response.failure("cannot look up schema under subject " + subject + " " + response.describe());
        }
        int id = requiredInt(response, "POST " + path, "id");
        idBySubjectSchema.putIfAbsent(key, id);
        schemaById.putIfAbsent(id, schema);
        return OptionalInt.of(id);
    }

    @Override
    public Schema getById(int id) {
        Schema cached = schemaById.get(id);
        if (cached != null) {
            return cached;
        }
        String path = "/schemas/ids/" + id;
        Response response = send("GET", path, null);
        if (response.status() == 404) {
            throw new UnknownSchemaIdException(id, "unknown schema id " + id + " " + response.describe());
        }
        if (!response.ok()) {
            throw response.failure("cannot fetch schema id " + id + " " + response.describe());
        }
        Schema schema = parseSchema(response, "GET " + path, "schema id " + id);
        Schema previous = schemaById.putIfAbsent(id, schema);
        return previous != null ? previous : schema;
    }

    @Override
    public Optional<RegisteredSchema> latest(String subject) {
        String path = "/subjects/" + pathSegment(subject) + "/versions/latest";
        Response response = send("GET", path, null);
        if (response.status() == 404) {
            return Optional.empty();
        }
        if (!response.ok()) {
            throw response.failure("cannot fetch the latest version of subject " + subject + " " + response.describe());
        }
        int id = requiredInt(response, "GET " + path, "id");
        int version = requiredInt(response, "GET " + path, "version");
        Schema schema = schemaById.computeIfAbsent(id,
                i -> parseSchema(response, "GET " + path, "latest version of subject " + subject));
        return Optional.of(new RegisteredSchema(id, version, schema));
    }

    @Override
    public String toString() {
        return "HttpSchemaRegistryClient[" + baseUrl + (authorization.isPresent() ? ", basic auth" : "") + "]";
    }

    private String schemaBody(Schema schema) {
        try {
            return json.writeValueAsString(Map.of("schema", schema.toString()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON string", e);
        }
    }

    private static String pathSegment(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private Response send(String method, String path, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path))
                .timeout(requestTimeout)
                .header("Accept", ACCEPT);
        if (body != null) {
            request.header("Content-Type", CONTENT_TYPE).method(method, HttpRequest.BodyPublishers.ofString(body));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        authorization.ifPresent(value -> request.header("Authorization", value));
        String call = method + " " + path;
        try {
            HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body() == null ? "" : response.body());
        } catch (HttpConnectTimeoutException e) {
            throw new SchemaRegistryUnavailableException("cannot connect to the schema registry at " + baseUrl
                    + " within " + http.connectTimeout().map(Duration::toSeconds).orElse(0L) + " s (" + call + ")", e);
        } catch (HttpTimeoutException e) {
            throw new SchemaRegistryUnavailableException("the schema registry at " + baseUrl + " did not answer within "
                    + requestTimeout.toMillis() + " ms (" + call + ")", e);
        } catch (ConnectException e) {
            throw new SchemaRegistryUnavailableException("cannot connect to the schema registry at " + baseUrl + " (" + call + "): "
                    + describe(e, "connection refused or unreachable (ConnectException)"), e);
        } catch (IOException e) {
            // a reset connection, a TLS handshake cut short, a DNS failure: the network, not the schema
            throw new SchemaRegistryUnavailableException("schema registry request failed: " + call + " at " + baseUrl + ": "
                    + describe(e, e.getClass().getName()), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // the caller is being stopped: the record was not judged, so it must not look undecodable
            throw new SchemaRegistryUnavailableException("interrupted while calling the schema registry at " + baseUrl
                    + " (" + call + ")", e);
        }
    }

    /** The first message in the cause chain (the JDK's ConnectException often has none), else {@code fallback}. */
    private static String describe(Throwable e, String fallback) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null) {
                return t.getMessage();
            }
        }
        return fallback;
    }

    private JsonNode body(Response response, String call) {
        try {
            return json.readTree(response.body());
        } catch (JsonProcessingException e) {
            throw new SchemaRegistryException("the schema registry at " + baseUrl + " answered " + call
                    + " with something that is not JSON: " + response.shortBody(), e);
        }
    }

    private int requiredInt(Response response, String call, String field) {
        JsonNode value = body(response, call).get(field);
        if (value == null || !value.canConvertToInt()) {
            throw new SchemaRegistryException("the schema registry at " + baseUrl + " answered " + call
                    + " without an integer \"" + field + "\": " + response.shortBody());
        }
        return value.intValue();
    }

    private Schema parseSchema(Response response, String call, String what) {
        JsonNode node = body(response, call);
        JsonNode type = node.get("schemaType");
        if (type != null && !type.isNull() && !"AVRO".equals(type.asText())) {
            throw new SchemaRegistryException(what + " in the schema registry at " + baseUrl + " is a "
                    + type.asText() + " schema, not Avro");
        }
        JsonNode text = node.get("schema");
        if (text == null || !text.isTextual()) {
            throw new SchemaRegistryException("the schema registry at " + baseUrl + " answered " + call
                    + " without a \"schema\" string: " + response.shortBody());
        }
        try {
            return new Schema.Parser().parse(text.asText());
        } catch (SchemaParseException e) {
            throw new SchemaRegistryException(what + " in the schema registry at " + baseUrl
                    + " is not a valid Avro schema: " + e.getMessage(), e);
        }
    }

    private record SubjectSchema(String subject, Schema schema) {
    }

    private final class Response {
        private final int status;
        private final String body;

        Response(int status, String body) {
            this.status = status;
            this.body = body;
        }

        int status() {
            return status;
        }

        String body() {
            return body;
        }

        boolean ok() {
            return status >= 200 && status < 300;
        }

        String shortBody() {
            String text = body.strip();
            return text.length() <= MAX_BODY_IN_MESSAGE ? text : text.substring(0, MAX_BODY_IN_MESSAGE) + "...";
        }

        /**
         * The exception for this non-2xx answer: {@link SchemaRegistryUnavailableException} when the
         * registry could not serve anyone now (5xx, 408, 429) or refused our credentials (401, 403),
         * which an operator fixes without the data changing; else a {@link SchemaRegistryException}.
         */
        SchemaRegistryException failure(String message) {
            boolean unavailable = status >= 500 || status == 408 || status == 429 || status == 401 || status == 403;
            return unavailable ? new SchemaRegistryUnavailableException(message) : new SchemaRegistryException(message);
        }

        /** {@code (registry http://host:port: 404 {"error_code":40403,...})}, with a hint for auth failures. */
        String describe() {
            String hint = status == 401 || status == 403 ? "; check basic.auth.user.info" : "";
            return "(registry " + baseUrl + ": " + status + " " + shortBody() + hint + ")";
        }
    }
}
