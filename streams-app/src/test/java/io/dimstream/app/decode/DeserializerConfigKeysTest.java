package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.model.AvroOptions;
import io.dimstream.schemas.serde.AvroWireConfig;
import org.junit.jupiter.api.Test;

class DeserializerConfigKeysTest {

    @Test
    void theConfigKnowsExactlyTheSettingsOfTheDefaultDeserializer() {
        // db cannot see the schemas module, so it keeps its own list; this keeps the two equal
        assertThat(AvroOptions.DEFAULT_DESERIALIZER_KEYS).isEqualTo(AvroWireConfig.definition().names());
        assertThat(AvroOptions.DEFAULT_VALUE_DESERIALIZER).isEqualTo(io.dimstream.schemas.serde.AvroWireDeserializer.class.getName());
    }
}
