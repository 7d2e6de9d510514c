package io.dimstream.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.schemas.registry.MockSchemaRegistry;
import io.dimstream.schemas.serde.AvroWireDeserializer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.GenericRecordBuilder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Avro text is decoded strictly: a string, a map key or a uuid string whose bytes are not UTF-8 is
 * refused naming its field's path and the byte within the string, whether the schema says
 * {@code avro.java.string: String} or not; good text, in every plane, comes out exact. Before,
 * {@code Utf8.toString()} gave {@code a\uFFFD(b} for the bytes {@code 61 C3 28 62} and nothing
 * was refused.
 */
class AvroStrictTextTest {

    private static final String SCOPE = "avro-strict-text-test";

    private static Schema schema(String stringProp) {
        String string = stringProp == null ? "\"string\"" : "{\"type\": \"string\", \"avro.java.string\": \"" + stringProp + "\"}";
        return new Schema.Parser().parse("""
                {"type": "record", "name": "T", "fields": [
                  {"name": "s", "type": %s},
                  {"name": "maybe", "type": ["null", %s]},
                  {"name": "tags", "type": {"type": "array", "items": %s}},
                  {"name": "attrs", "type": {"type": "map", "values": "long"%s}},
                  {"name": "id", "type": {"type": "string", "logicalType": "uuid"}}
                ]}""".formatted(string, string, string, stringProp == null ? "" : ", \"avro.java.string\": \"" + stringProp + "\""));
    }

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(SCOPE);
    }

    private static Utf8 bytes(String hex) {
        return new Utf8(HexFormat.of().parseHex(hex));
    }

    /** The record written with its strings' bytes as they are, read back by dimstream's deserializer, then converted. */
    private static Map<String, Object> throughTheWire(Schema schema, Object s, Object maybe, Object tag, Object attrKey, Object id) {
        Map<Object, Long> attrs = new LinkedHashMap<>();
        attrs.put(attrKey, 1L);
        GenericRecord record = new GenericRecordBuilder(schema).set("s", s).set("maybe", maybe).set("tags", List.of(tag))
                .set("attrs", attrs).set("id", id).build();
        MockSchemaRegistry registry = MockSchemaRegistry.forScope(SCOPE);
        int schemaId = registry.register("t-value", schema);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        wire.write(0);
        wire.writeBytes(ByteBuffer.allocate(4).putInt(schemaId).array());
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(wire, null);
        try {
            // no conversions: a uuid string's bytes are written as they are too
            new GenericDatumWriter<GenericRecord>(schema, new GenericData()).write(record, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return AvroValues.toMap(new AvroWireDeserializer(registry).deserialize("t", patched(wire.toByteArray())));
    }

    /**
     * The wire bytes with the map key {@code key~} made {@code 6B 65 79 C0}: Avro's writer turns
     * a map key into a String before writing it, so bad bytes cannot be put there otherwise.
     */
    private static byte[] patched(byte[] wire) {
        String hex = HexFormat.of().formatHex(wire);
        int at = hex.indexOf("6b65797e");
        return at < 0 ? wire : HexFormat.of().parseHex(hex.substring(0, at) + "6b6579c0" + hex.substring(at + 8));
    }

    private static final String UUID = "3f1c9d2e-8a4b-4c6d-9e0f-1a2b3c4d5e6f";

    @Test
    void goodTextOfEveryPlaneComesOutExact() {
        for (String prop : new String[] {null, "String", "CharSequence"}) {
            Map<String, Object> expected = new LinkedHashMap<>();
            expected.put("s", "héllo € 😀");
            expected.put("maybe", "ü");
            expected.put("tags", List.of("日本"));
            expected.put("attrs", Map.of("ключ", 1L));
            expected.put("id", UUID);
            assertThat(throughTheWire(schema(prop), new Utf8("héllo € 😀"), new Utf8("ü"), new Utf8("日本"), new Utf8("ключ"), new Utf8(UUID)))
                    .as("avro.java.string %s", prop).isEqualTo(expected);
        }
    }

    @Test
    void aStringThatIsNotUtf8IsRefusedNamingItsFieldAndByte() {
        for (String prop : new String[] {null, "String"}) {
            Schema schema = schema(prop);
            assertThatThrownBy(() -> throughTheWire(schema, bytes("61c32862"), null, new Utf8("t"), new Utf8("k"), new Utf8(UUID)))
                    .as("avro.java.string %s", prop).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("T.s: not valid UTF-8: malformed byte sequence at byte 1");
            // CESU-8 / modified UTF-8: a surrogate encoded on its own (U+D800 as ED A0 80)
            assertThatThrownBy(() -> throughTheWire(schema, new Utf8("ok"), bytes("78eda080"), new Utf8("t"), new Utf8("k"), new Utf8(UUID)))
                    .hasMessage("T.maybe: not valid UTF-8: malformed byte sequence at byte 1");
            assertThatThrownBy(() -> throughTheWire(schema, new Utf8("ok"), null, bytes("ff"), new Utf8("k"), new Utf8(UUID)))
                    .hasMessage("T.tags[0]: not valid UTF-8: malformed byte sequence at byte 0");
            assertThatThrownBy(() -> throughTheWire(schema, new Utf8("ok"), null, new Utf8("t"), new Utf8("key~"), new Utf8(UUID)))
                    .hasMessage("T.attrs (a map key): not valid UTF-8: malformed byte sequence at byte 3");
            assertThatThrownBy(() -> throughTheWire(schema, new Utf8("ok"), null, new Utf8("t"), new Utf8("k"), bytes("3366c0af")))
                    .hasMessage("T.id: not valid UTF-8: malformed byte sequence at byte 2");
        }
    }
}
