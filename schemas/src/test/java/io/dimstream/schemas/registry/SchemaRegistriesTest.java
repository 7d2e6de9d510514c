package io.dimstream.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SchemaRegistriesTest {

    @Test
    void mockUrlsGiveTheScopesInMemoryRegistry() {
        SchemaRegistryClient client = SchemaRegistries.forUrl("mock://registries-test", Map.of());

        assertThat(client).isInstanceOfSatisfying(MockSchemaRegistry.class,
                mock -> assertThat(mock.scope()).isEqualTo("registries-test"));
        MockSchemaRegistry.drop("registries-test");
    }

    @Test
    void httpUrlsGiveAnHttpClientWithBasicAuthWhenConfigured() {
        SchemaRegistryClient client = SchemaRegistries.forUrl("https://registry.example:8081/",
                Map.of(SchemaRegistries.BASIC_AUTH_USER_INFO, "alice:s3cret"));

        assertThat(client).hasToString("HttpSchemaRegistryClient[https://registry.example:8081, basic auth]");
    }

    @Test
    void otherUrlsAreRefusedSayingWhatIsExpected() {
        assertThatThrownBy(() -> SchemaRegistries.forUrl("ftp://registry", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unsupported schema registry URL ftp://registry: expected http://..., https://... or mock://SCOPE");
        assertThatThrownBy(() -> SchemaRegistries.forUrl("http://a:8081,http://b:8081", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("only one schema registry URL is supported, got a list: http://a:8081,http://b:8081");
        assertThatThrownBy(() -> SchemaRegistries.forUrl("mock://", Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("mock:// needs a scope name, like mock://demo");
    }
}
