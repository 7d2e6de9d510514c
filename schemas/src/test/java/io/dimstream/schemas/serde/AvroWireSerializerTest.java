package io.dimstream.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.schemas.DemoSchemas;
import io.dimstream.schemas.registry.MockSchemaRegistry;
import io.dimstream.schemas.registry.RegisteredSchema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AvroWireSerializerTest {

    private static final String SCOPE = "serializer-test";
    private static final Schema CUSTOMER = DemoSchemas.customer();

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(SCOPE);
    }

    private static GenericRecord alice() {
        return new GenericRecordBuilder(CUSTOMER)
                .set("customer_id", "C1")
                .set("email", "alice@example.com")
                .set("country", "NL")
                .set("last_login", 1_755_882_000_000L)
                .build();
    }

    /** Avro binary of the record, written here the plain way, independently of the serializer. */
    private static byte[] avroBinary(GenericRecord record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(record.getSchema(), GenericData.get()).write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void writesMagicZeroThenTheBigEndianSchemaIdThenAvroBinary() throws IOException {
        FixedRegistry registry = new FixedRegistry(0x01020304, CUSTOMER);
        AvroWireSerializer serializer = new AvroWireSerializer(registry);

        byte[] bytes = serializer.serialize("crm.customers", alice());

        assertThat(bytes).isEqualTo(concat(new byte[] {0x00, 0x01, 0x02, 0x03, 0x04}, avroBinary(alice())));
        assertThat(registry.registeredSubjects).containsExactly("crm.customers-value");
    }

    @Test
    void theAvroBodyIsExactlyTheseBytesForAKnownRecord() {
        Schema schema = new Schema.Parser().parse(
                "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"id\",\"type\":\"string\"},"
                        + "{\"name\":\"n\",\"type\":\"long\"}]}");
        GenericRecord record = new GenericRecordBuilder(schema).set("id", "C1").set("n", -2L).build();

        byte[] bytes = new AvroWireSerializer(new FixedRegistry(258, schema)).serialize("t", record);

        // 0x00 | id 258 = 00 00 01 02 | string "C1": zigzag length 2 = 0x04, 'C', '1' | long -2: zigzag 3
        assertThat(bytes).containsExactly(0x00, 0x00, 0x00, 0x01, 0x02, 0x04, 'C', '1', 0x03);
    }

    @Test
    void keysGoUnderTheTopicKeySubjectAndValuesUnderTopicValue() {
        Map<String, Object> configs = Map.of(AvroWireConfig.SCHEMA_REGISTRY_URL, "mock://" + SCOPE);
        AvroWireSerializer keys = new AvroWireSerializer();
        keys.configure(configs, true);
        AvroWireSerializer values = new AvroWireSerializer();
        values.configure(configs, false);
        GenericRecord key = new GenericRecordBuilder(DemoSchemas.customer()).set("customer_id", "C1").build();

        keys.serialize("crm.customers", key);
        values.serialize("crm.customers", alice());

        MockSchemaRegistry registry = MockSchemaRegistry.forScope(SCOPE);
        assertThat(registry.latest("crm.customers-key")).contains(new RegisteredSchema(1, 1, CUSTOMER));
        assertThat(registry.latest("crm.customers-value")).contains(new RegisteredSchema(1, 1, CUSTOMER));
    }

    @Test
    void withoutAutoRegisterAnUnregisteredSchemaIsRefused() {
        AvroWireSerializer serializer = new AvroWireSerializer();
        serializer.configure(Map.of(AvroWireConfig.SCHEMA_REGISTRY_URL, "mock://" + SCOPE,
                AvroWireConfig.AUTO_REGISTER_SCHEMAS, "false"), false);

        assertThatThrownBy(() -> serializer.serialize("crm.customers", alice()))
                .isInstanceOf(SerializationException.class)
                .hasMessage("schema io.dimstream.demo.Customer is not registered under subject crm.customers-value"
                        + " and auto.register.schemas is false");
    }

    @Test
    void withoutAutoRegisterARegisteredSchemaIsUsedWithItsId() {
        MockSchemaRegistry.forScope(SCOPE).register("other-value", DemoSchemas.dlqEnvelope());
        MockSchemaRegistry.forScope(SCOPE).register("crm.customers-value", CUSTOMER);
        AvroWireSerializer serializer = new AvroWireSerializer();
        serializer.configure(Map.of(AvroWireConfig.SCHEMA_REGISTRY_URL, "mock://" + SCOPE,
                AvroWireConfig.AUTO_REGISTER_SCHEMAS, false), false);

        byte[] bytes = serializer.serialize("crm.customers", alice());

        assertThat(bytes).startsWith(0x00, 0x00, 0x00, 0x00, 0x02);
    }

    @Test
    void aNullRecordIsANullValue() {
        assertThat(new AvroWireSerializer(new FixedRegistry(1, CUSTOMER)).serialize("t", null)).isNull();
    }

    @Test
    void aMissingRegistryUrlIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> new AvroWireSerializer().configure(Map.of("bootstrap.servers", "x:9092"), false))
                .isInstanceOf(ConfigException.class)
                .hasMessage("missing required configuration \"schema.registry.url\": the schema registry's URL"
                        + " (http://host:8081, or mock://SCOPE in tests)");
    }

    @Test
    void aRecordThatBreaksItsSchemaIsASerializationExceptionNamingTheField() {
        GenericRecord noKey = new GenericData.Record(CUSTOMER);

        assertThatThrownBy(() -> new AvroWireSerializer(new FixedRegistry(9, CUSTOMER)).serialize("t", noKey))
                .isInstanceOf(SerializationException.class)
                .hasMessage("cannot encode io.dimstream.demo.Customer as Avro with schema id 9: "
                        + "null value for (non-nullable) string at Customer.customer_id");
    }
}
