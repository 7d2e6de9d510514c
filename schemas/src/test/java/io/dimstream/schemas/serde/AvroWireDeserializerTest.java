package io.dimstream.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.schemas.DemoSchemas;
import io.dimstream.schemas.registry.MockSchemaRegistry;
import io.dimstream.schemas.registry.SchemaRegistryUnavailableException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.util.Utf8;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AvroWireDeserializerTest {

    private static final String SCOPE = "deserializer-test";
    private static final String TOPIC = "crm.customers";
    private static final Schema CUSTOMER = DemoSchemas.customer();

    /** v1 of an evolving record. */
    private static final Schema V1 = SchemaBuilder.record("Customer").namespace("io.dimstream.demo").fields()
            .requiredString("customer_id")
            .optionalString("email")
            .endRecord();
    /** v2 = v1 plus an optional field with a non-null default, so "got its default" is visible. */
    private static final Schema V2 = SchemaBuilder.record("Customer").namespace("io.dimstream.demo").fields()
            .requiredString("customer_id")
            .optionalString("email")
            .name("loyalty_tier").type().stringType().stringDefault("bronze")
            .endRecord();

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(SCOPE);
    }

    private static Map<String, Object> configs(String readerSchema) {
        Map<String, Object> configs = new HashMap<>();
        configs.put(AvroWireConfig.SCHEMA_REGISTRY_URL, "mock://" + SCOPE);
        if (readerSchema != null) {
            configs.put(AvroWireConfig.READER_SCHEMA, readerSchema);
        }
        return configs;
    }

    private static AvroWireSerde serde(String readerSchema) {
        AvroWireSerde serde = new AvroWireSerde();
        serde.configure(configs(readerSchema), false);
        return serde;
    }

    private static AvroWireDeserializer fixed(int id, Schema schema) {
        return new AvroWireDeserializer(new FixedRegistry(id, schema));
    }

    @Test
    void aRecordComesBackEqualThroughTheMockRegistry() {
        GenericRecord alice = new GenericRecordBuilder(CUSTOMER)
                .set("customer_id", "C1").set("email", "alice@example.com").set("full_name", "Alice A.")
                .set("country", "NL").set("city", "Utrecht").set("loyalty_tier", "gold").set("last_login", 1_755_882_000_000L)
                .build();
        AvroWireSerde serde = serde(null);

        GenericRecord back = serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, alice));

        assertThat(back).isEqualTo(alice);
        assertThat(back.getSchema()).isEqualTo(CUSTOMER);
        assertThat(back.get("customer_id")).isEqualTo(new Utf8("C1"));
    }

    @Test
    void aV1RecordReadWithTheV2ReaderSchemaGetsTheNewFieldsDefault() {
        GenericRecord v1 = new GenericRecordBuilder(V1).set("customer_id", "C1").set("email", "a@x").build();
        byte[] bytes = serde(null).serializer().serialize(TOPIC, v1);

        GenericRecord read = serde(V2.toString()).deserializer().deserialize(TOPIC, bytes);

        assertThat(read).isEqualTo(new GenericRecordBuilder(V2)
                .set("customer_id", "C1").set("email", "a@x").set("loyalty_tier", "bronze").build());
    }

    @Test
    void aV2RecordReadWithTheV1ReaderSchemaDropsTheNewField() {
        GenericRecord v2 = new GenericRecordBuilder(V2)
                .set("customer_id", "C1").set("email", "a@x").set("loyalty_tier", "gold").build();
        byte[] bytes = serde(null).serializer().serialize(TOPIC, v2);

        GenericRecord read = serde(V1.toString()).deserializer().deserialize(TOPIC, bytes);

        assertThat(read).isEqualTo(new GenericRecordBuilder(V1).set("customer_id", "C1").set("email", "a@x").build());
        assertThat(read.getSchema()).isEqualTo(V1);
    }

    @Test
    void withoutAReaderSchemaEachRecordComesOutInItsWritersSchema() {
        AvroWireSerde serde = serde(null);
        GenericRecord v1 = new GenericRecordBuilder(V1).set("customer_id", "C1").build();
        GenericRecord v2 = new GenericRecordBuilder(V2).set("customer_id", "C2").set("loyalty_tier", "gold").build();

        GenericRecord read1 = serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, v1));
        GenericRecord read2 = serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, v2));

        assertThat(read1).isEqualTo(v1);
        assertThat(read2).isEqualTo(v2);
    }

    @Test
    void aReaderSchemaTheWriterCannotBeResolvedToIsADecodeError() {
        Schema needsCity = SchemaBuilder.record("Customer").namespace("io.dimstream.demo").fields()
                .requiredString("customer_id").requiredString("city").endRecord();
        byte[] bytes = serde(null).serializer().serialize(TOPIC, new GenericRecordBuilder(V1).set("customer_id", "C1").build());

        assertThatThrownBy(() -> serde(needsCity.toString()).deserializer().deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessage("cannot decode Avro with writer schema id 1: Found io.dimstream.demo.Customer, "
                        + "expecting io.dimstream.demo.Customer, missing required field city");
    }

    @Test
    void anUnknownSchemaIdIsNamed() {
        byte[] bytes = {0x00, 0x00, 0x00, 0x00, 0x2a, 0x02, 'x'};

        assertThatThrownBy(() -> fixed(7, CUSTOMER).deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessage("unknown schema id 42");
    }

    @Test
    void aRecordNotInWireFormatNamesItsFirstByte() {
        byte[] json = "{\"customer_id\":\"C1\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);

        assertThatThrownBy(() -> fixed(7, CUSTOMER).deserialize(TOPIC, json))
                .isInstanceOf(SerializationException.class)
                .hasMessage("unknown magic byte 0x7b (expected 0x00: not Confluent wire format)");
    }

    @Test
    void aRecordShorterThanTheHeaderIsTooShort() {
        assertThatThrownBy(() -> fixed(7, CUSTOMER).deserialize(TOPIC, new byte[] {0x00, 0x00, 0x00}))
                .isInstanceOf(SerializationException.class)
                .hasMessage("record too short: 3 bytes (need at least 5)");
        assertThatThrownBy(() -> fixed(7, CUSTOMER).deserialize(TOPIC, new byte[0]))
                .isInstanceOf(SerializationException.class)
                .hasMessage("record too short: 0 bytes (need at least 5)");
    }

    @Test
    void garbageAfterAValidHeaderIsADecodeErrorNamingTheWriterSchemaId() {
        // customer_id is a string: 0x01 is zigzag -1, a negative length
        byte[] bytes = {0x00, 0x00, 0x00, 0x00, 0x07, 0x01, 0x55, 0x55};

        assertThatThrownBy(() -> fixed(7, CUSTOMER).deserialize(TOPIC, bytes))
                .isInstanceOf(SerializationException.class)
                .hasMessage("cannot decode Avro with writer schema id 7: Malformed data. Length is negative: -1");
    }

    @Test
    void bytesLeftOverAfterTheRecordAreADecodeError() {
        AvroWireSerializer serializer = new AvroWireSerializer(new FixedRegistry(7, V1));
        byte[] valid = serializer.serialize(TOPIC, new GenericRecordBuilder(V1).set("customer_id", "C1").build());
        byte[] longer = Arrays.copyOf(valid, valid.length + 2);

        assertThatThrownBy(() -> fixed(7, V1).deserialize(TOPIC, longer))
                .isInstanceOf(SerializationException.class)
                .hasMessage("cannot decode Avro with writer schema id 7: bytes left over after the record");
    }

    @Test
    void truncatedAvroIsADecodeError() {
        AvroWireSerializer serializer = new AvroWireSerializer(new FixedRegistry(7, V1));
        byte[] valid = serializer.serialize(TOPIC, new GenericRecordBuilder(V1).set("customer_id", "C1").build());
        byte[] cut = Arrays.copyOf(valid, valid.length - 2);

        assertThatThrownBy(() -> fixed(7, V1).deserialize(TOPIC, cut))
                .isInstanceOf(SerializationException.class)
                .hasMessageStartingWith("cannot decode Avro with writer schema id 7: ");
    }

    @Test
    void aNullValueIsATombstoneAndDeserializesToNull() {
        assertThat(fixed(7, CUSTOMER).deserialize(TOPIC, null)).isNull();
        assertThat(serde(null).deserializer().deserialize(TOPIC, null)).isNull();
    }

    @Test
    void aReaderSchemaThatIsNotAvroIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> serde("{\"type\":\"record\"}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("dimstream.avro.reader.schema is not a valid Avro schema: ");
    }

    @Test
    void theValueReaderSchemaIsNotAppliedToKeys() {
        GenericRecord v2 = new GenericRecordBuilder(V2).set("customer_id", "C1").set("loyalty_tier", "gold").build();
        AvroWireSerializer keySerializer = new AvroWireSerializer();
        keySerializer.configure(configs(null), true);
        AvroWireDeserializer keyDeserializer = new AvroWireDeserializer();
        keyDeserializer.configure(configs(V1.toString()), true);

        GenericRecord read = keyDeserializer.deserialize(TOPIC, keySerializer.serialize(TOPIC, v2));

        assertThat(read).isEqualTo(v2);
    }

    @Test
    void logicalTypesMayBeGivenAsJavaTypesAndComeBackRaw() {
        Schema change = DemoSchemas.customerChange();
        GenericRecord data = new GenericRecordBuilder(CUSTOMER).set("customer_id", "C1").build();
        GenericRecord event = new GenericRecordBuilder(change)
                .set("op", new GenericData.EnumSymbol(change.getField("op").schema(), "delete"))
                .set("event_time", java.time.Instant.parse("2025-08-22T17:00:00.123456Z"))
                .set("data", data)
                .build();
        AvroWireSerde serde = serde(null);

        GenericRecord read = serde.deserializer().deserialize(TOPIC, serde.serializer().serialize(TOPIC, event));

        assertThat(read).isEqualTo(new GenericRecordBuilder(change)
                .set("op", new GenericData.EnumSymbol(change.getField("op").schema(), "delete"))
                .set("event_time", 1_755_882_000_123_456L)
                .set("data", data)
                .build());
    }

    /** A registry that is unavailable for its first {@code failures} requests, then knows one schema. */
    private static final class FlakyRegistry implements io.dimstream.schemas.registry.SchemaRegistryClient {
        private final FixedRegistry delegate;
        private int failures;
        int requests;

        FlakyRegistry(int failures, int id, Schema schema) {
            this.failures = failures;
            this.delegate = new FixedRegistry(id, schema);
        }

        @Override
        public synchronized Schema getById(int id) {
            requests++;
            if (failures-- > 0) {
                throw new SchemaRegistryUnavailableException("cannot fetch schema id " + id + " (registry fake: 503 down)");
            }
            return delegate.getById(id);
        }

        @Override
        public int register(String subject, Schema schema) {
            return delegate.register(subject, schema);
        }

        @Override
        public java.util.OptionalInt lookup(String subject, Schema schema) {
            return delegate.lookup(subject, schema);
        }

        @Override
        public java.util.Optional<io.dimstream.schemas.registry.RegisteredSchema> latest(String subject) {
            return delegate.latest(subject);
        }
    }

    private static byte[] wire(int id, GenericRecord record) {
        return new AvroWireSerializer(new FixedRegistry(id, record.getSchema())).serialize(TOPIC, record);
    }

    @Test
    void anUnavailableRegistryIsAskedAgainWithBackoffAndTheRecordDecodesOnceItAnswers() {
        GenericRecord c1 = new GenericRecordBuilder(V1).set("customer_id", "C1").build();
        FlakyRegistry registry = new FlakyRegistry(3, 7, V1);
        AvroWireDeserializer deserializer = new AvroWireDeserializer(registry, null, java.time.Duration.ofSeconds(10));

        long start = System.nanoTime();
        assertThat(deserializer.deserialize(TOPIC, wire(7, c1))).isEqualTo(c1);

        assertThat(registry.requests).isEqualTo(4);
        // 200 + 400 + 800 ms of backoff between the four requests
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(java.time.Duration.ofMillis(1400));
    }

    @Test
    void aRegistryUnavailableForLongerThanTheRetryTimeIsThrownAsUnavailableNotAsUndecodable() {
        GenericRecord c1 = new GenericRecordBuilder(V1).set("customer_id", "C1").build();
        FlakyRegistry registry = new FlakyRegistry(Integer.MAX_VALUE, 7, V1);
        AvroWireDeserializer deserializer = new AvroWireDeserializer(registry, null, java.time.Duration.ofMillis(500));

        assertThatThrownBy(() -> deserializer.deserialize(TOPIC, wire(7, c1)))
                .isExactlyInstanceOf(SchemaRegistryUnavailableException.class)
                .hasMessage("schema registry unavailable for writer schema id 7 (3 attempts over 500 ms): "
                        + "cannot fetch schema id 7 (registry fake: 503 down)");
        assertThat(registry.requests).isEqualTo(3);
    }

    @Test
    void theRetryTimeIsASettingAndZeroAsksOnce() {
        GenericRecord c1 = new GenericRecordBuilder(V1).set("customer_id", "C1").build();
        Map<String, Object> configs = configs(null);
        configs.put(AvroWireConfig.REGISTRY_RETRY_MS, "0");
        AvroWireDeserializer deserializer = new AvroWireDeserializer(new FlakyRegistry(1, 7, V1));
        deserializer.configure(configs, false);

        assertThatThrownBy(() -> deserializer.deserialize(TOPIC, wire(7, c1)))
                .isExactlyInstanceOf(SchemaRegistryUnavailableException.class)
                .hasMessage("schema registry unavailable for writer schema id 7 (1 attempt over 0 ms): "
                        + "cannot fetch schema id 7 (registry fake: 503 down)");
        // the next record finds the registry back
        assertThat(deserializer.deserialize(TOPIC, wire(7, c1))).isEqualTo(c1);
    }
}
