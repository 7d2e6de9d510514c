package io.dimstream.schemas.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.OptionalInt;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MockSchemaRegistryTest {

    private static final String SCOPE = "mock-registry-test";
    private static final Schema V1 = SchemaBuilder.record("R").fields().requiredString("a").endRecord();
    private static final Schema V2 = SchemaBuilder.record("R").fields().requiredString("a").optionalLong("b").endRecord();

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(SCOPE);
        MockSchemaRegistry.drop(SCOPE + "-other");
    }

    @Test
    void clientsOfTheSameScopeShareIdsAndVersions() {
        MockSchemaRegistry producerSide = MockSchemaRegistry.forScope(SCOPE);
        MockSchemaRegistry consumerSide = MockSchemaRegistry.forScope(SCOPE);

        List<Integer> ids = List.of(producerSide.register("t-value", V1), producerSide.register("t-value", V1),
                producerSide.register("t-value", V2), producerSide.register("u-value", V1));

        assertThat(ids).containsExactly(1, 1, 2, 1);
        assertThat(consumerSide.getById(2)).isEqualTo(V2);
        assertThat(consumerSide.latest("t-value")).contains(new RegisteredSchema(2, 2, V2));
        assertThat(consumerSide.latest("u-value")).contains(new RegisteredSchema(1, 1, V1));
        assertThat(consumerSide.latest("nobody-value")).isEmpty();
        assertThat(consumerSide.lookup("t-value", V2)).isEqualTo(OptionalInt.of(2));
        assertThat(consumerSide.lookup("u-value", V2)).isEqualTo(OptionalInt.empty());
    }

    @Test
    void scopesAreSeparateAndDropForgetsOne() {
        MockSchemaRegistry.forScope(SCOPE).register("t-value", V1);

        assertThatThrownBy(() -> MockSchemaRegistry.forScope(SCOPE + "-other").getById(1))
                .isInstanceOf(UnknownSchemaIdException.class)
                .hasMessage("unknown schema id 1 (registry mock://mock-registry-test-other)");

        MockSchemaRegistry.drop(SCOPE);

        assertThat(MockSchemaRegistry.forScope(SCOPE).latest("t-value")).isEmpty();
    }
}
