package io.dimstream.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.dimstream.schemas.DemoSchemas;
import io.dimstream.schemas.registry.FakeRegistryServer;
import io.dimstream.schemas.registry.FakeRegistryServer.Seen;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.junit.jupiter.api.Test;

class AvroWireSerdeOverHttpTest {

    @Test
    void aSerdeConfiguredFromAPlainConfigMapTalksToAnHttpRegistryWithBasicAuth() throws IOException {
        String authorization = "Basic " + Base64.getEncoder().encodeToString("alice:s3cret".getBytes(StandardCharsets.UTF_8));
        try (FakeRegistryServer server = new FakeRegistryServer(authorization)) {
            Map<String, Object> configs = Map.of(
                    "bootstrap.servers", "127.0.0.1:9092",
                    AvroWireConfig.SCHEMA_REGISTRY_URL, server.url(),
                    AvroWireConfig.BASIC_AUTH_USER_INFO, "alice:s3cret");
            AvroWireSerde producerSide = new AvroWireSerde();
            producerSide.configure(configs, false);
            AvroWireSerde consumerSide = new AvroWireSerde();
            consumerSide.configure(configs, false);
            GenericRecord c1 = new GenericRecordBuilder(DemoSchemas.customer()).set("customer_id", "C1").build();
            GenericRecord c2 = new GenericRecordBuilder(DemoSchemas.customer()).set("customer_id", "C2").build();

            byte[] first = producerSide.serializer().serialize("crm.customers", c1);
            byte[] second = producerSide.serializer().serialize("crm.customers", c2);
            List<GenericRecord> read = List.of(
                    consumerSide.deserializer().deserialize("crm.customers", first),
                    consumerSide.deserializer().deserialize("crm.customers", second));

            assertThat(read).containsExactly(c1, c2);
            assertThat(first).startsWith(0x00, 0x00, 0x00, 0x00, 100);
            assertThat(server.seen()).extracting(Seen::method, Seen::path, Seen::authorization).containsExactly(
                    tuple("POST", "/subjects/crm.customers-value/versions", authorization),
                    tuple("GET", "/schemas/ids/100", authorization));
        }
    }
}
