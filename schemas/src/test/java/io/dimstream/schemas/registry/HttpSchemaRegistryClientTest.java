package io.dimstream.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dimstream.schemas.registry.FakeRegistryServer.Seen;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HttpSchemaRegistryClientTest {

    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";
    private static final Schema V1 = SchemaBuilder.record("Customer").namespace("io.dimstream.demo").fields()
            .requiredString("customer_id").optionalString("email").endRecord();
    private static final Schema V2 = SchemaBuilder.record("Customer").namespace("io.dimstream.demo").fields()
            .requiredString("customer_id").optionalString("email").optionalString("city").endRecord();

    private FakeRegistryServer server;

    @BeforeEach
    void start() throws IOException {
        server = new FakeRegistryServer(null);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String schemaBody(Schema schema) throws IOException {
        return new ObjectMapper().writeValueAsString(Map.of("schema", schema.toString()));
    }

    @Test
    void registerPostsTheSchemaAsAJsonStringAndReturnsTheRegistrysId() throws IOException {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(server.url(), null);

        int id = client.register("crm.customers-value", V1);

        assertThat(id).isEqualTo(100);
        assertThat(server.seen()).containsExactly(
                new Seen("POST", "/subjects/crm.customers-value/versions", CONTENT_TYPE, null, schemaBody(V1)));
    }

    @Test
    void registeringTheSameSchemaAgainGivesTheSameIdWithoutAskingAgain() throws IOException {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(server.url(), null);

        List<Integer> ids = List.of(client.register("t-value", V1), client.register("t-value", V1),
                client.register("t-value", V2));

        assertThat(ids).containsExactly(100, 100, 101);
        assertThat(server.seen()).extracting(Seen::path).containsExactly(
                "/subjects/t-value/versions", "/subjects/t-value/versions");
        // a second client (no shared cache) gets the same id from the registry: idempotent end to end
        assertThat(new HttpSchemaRegistryClient(server.url(), null).register("t-value", V1)).isEqualTo(100);
    }

    @Test
    void getByIdAsksTheRegistryOnceForTwoLookups() {
        server.preload("t-value", 7, V1.toString());
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(server.url(), null);

        List<Schema> schemas = List.of(client.getById(7), client.getById(7));

        assertThat(schemas).containsExactly(V1, V1);
        assertThat(server.seen()).containsExactly(new Seen("GET", "/schemas/ids/7", null, null, ""));
    }

    @Test
    void anIdJustRegisteredIsKnownWithoutAnotherRequest() {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(server.url(), null);

        int id = client.register("t-value", V1);

        assertThat(client.getById(id)).isEqualTo(V1);
        assertThat(server.seen()).extracting(Seen::path).containsExactly("/subjects/t-value/versions");
    }

    @Test
    void anUnknownIdIsA404NamedWithTheRegistryAndItsAnswer() {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(server.url(), null);

        assertThatThrownBy(() -> client.getById(42))
                .isInstanceOfSatisfying(UnknownSchemaIdException.class, e -> assertThat(e.id()).isEqualTo(42))
                .hasMessage("unknown schema id 42 (registry " + server.url()
                        + ": 404 {\"error_code\":40403,\"message\":\"Schema 42 not found\"})");
    }

    @Test
    void latestGivesIdVersionAndSchemaOfTheNewestVersion() {
        server.preload("t-value", 7, V1.toString());
        server.preload("t-value", 9, V2.toString());
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(server.url(), null);

        assertThat(client.latest("t-value")).contains(new RegisteredSchema(9, 2, V2));
        assertThat(client.latest("nobody-value")).isEmpty();
        assertThat(server.seen()).extracting(Seen::method, Seen::path).containsExactly(
                org.assertj.core.groups.Tuple.tuple("GET", "/subjects/t-value/versions/latest"),
                org.assertj.core.groups.Tuple.tuple("GET", "/subjects/nobody-value/versions/latest"));
    }

    @Test
    void lookupFindsARegisteredSchemaWithoutRegisteringIt() throws IOException {
        server.preload("t-value", 7, V1.toString());
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(server.url(), null);

        assertThat(client.lookup("t-value", V1)).isEqualTo(OptionalInt.of(7));
        assertThat(client.lookup("t-value", V2)).isEqualTo(OptionalInt.empty());
        assertThat(server.seen()).containsExactly(
                new Seen("POST", "/subjects/t-value", CONTENT_TYPE, null, schemaBody(V1)),
                new Seen("POST", "/subjects/t-value", CONTENT_TYPE, null, schemaBody(V2)));
        assertThat(client.latest("t-value")).map(RegisteredSchema::id).isEqualTo(Optional.of(7));
    }

    @Test
    void basicAuthUserInfoIsSentAsAnAuthorizationHeader() throws IOException {
        String header = "Basic " + Base64.getEncoder().encodeToString("alice:s3cret".getBytes(StandardCharsets.UTF_8));
        try (FakeRegistryServer guarded = new FakeRegistryServer(header)) {
            assertThat(new HttpSchemaRegistryClient(guarded.url(), "alice:s3cret").register("t-value", V1))
                    .isEqualTo(100);
            assertThat(guarded.seen()).extracting(Seen::authorization).containsExactly(header);

            // refused credentials are the operator's to fix, not the record's fault: retried, never dead-lettered
            assertThatThrownBy(() -> new HttpSchemaRegistryClient(guarded.url(), "alice:wrong").getById(100))
                    .isExactlyInstanceOf(SchemaRegistryUnavailableException.class)
                    .hasMessage("cannot fetch schema id 100 (registry " + guarded.url()
                            + ": 401 {\"error_code\":401,\"message\":\"Unauthorized\"}; check basic.auth.user.info)");
        }
    }

    @Test
    void aRefusedConnectionNamesTheRegistryUrl() {
        String url = server.url();
        server.close();
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(url, null);

        assertThatThrownBy(() -> client.getById(1))
                .isExactlyInstanceOf(SchemaRegistryUnavailableException.class)
                .hasMessage("cannot connect to the schema registry at " + url + " (GET /schemas/ids/1): "
                        + "connection refused or unreachable (ConnectException)");
    }

    @Test
    void serverErrorsTimeoutsAndRefusedCredentialsAreUnavailableWhileOtherAnswersAreNot() {
        HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(server.url(), null);
        for (int status : List.of(500, 502, 503, 504, 408, 429, 401, 403)) {
            server.failWith(status);
            assertThatThrownBy(() -> client.getById(100)).as("status %d", status)
                    .isExactlyInstanceOf(SchemaRegistryUnavailableException.class)
                    .hasMessage("cannot fetch schema id 100 (registry " + server.url() + ": " + status
                            + " {\"error_code\":" + status + ",\"message\":\"outage\"}"
                            + (status == 401 || status == 403 ? "; check basic.auth.user.info" : "") + ")");
        }
        server.failWith(400);
        assertThatThrownBy(() -> client.getById(100))
                .isExactlyInstanceOf(SchemaRegistryException.class)
                .hasMessage("cannot fetch schema id 100 (registry " + server.url() + ": 400 {\"error_code\":400,\"message\":\"outage\"})");
        server.recover();
        assertThatThrownBy(() -> client.getById(100)).isExactlyInstanceOf(UnknownSchemaIdException.class);
    }

    @Test
    void aRequestTheRegistryDoesNotAnswerInTimeIsUnavailable() throws IOException {
        // a socket that accepts connections and never answers: the request timeout, not the connect timeout, fires
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            String url = "http://127.0.0.1:" + silent.getLocalPort();
            HttpSchemaRegistryClient client = new HttpSchemaRegistryClient(url, null,
                    java.time.Duration.ofSeconds(2), java.time.Duration.ofMillis(300));
            assertThatThrownBy(() -> client.getById(1))
                    .isExactlyInstanceOf(SchemaRegistryUnavailableException.class)
                    .hasMessage("the schema registry at " + url + " did not answer within 300 ms (GET /schemas/ids/1)");
        }
    }

    @Test
    void credentialsInTheUrlAreRefusedSoTheyNeverReachALogLine() {
        assertThatThrownBy(() -> new HttpSchemaRegistryClient("http://alice:s3cret@127.0.0.1:1", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("credentials in the schema registry URL are not supported; give them in basic.auth.user.info");
    }
}
