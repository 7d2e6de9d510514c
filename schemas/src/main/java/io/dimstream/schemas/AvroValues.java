package io.dimstream.schemas;

import io.dimstream.db.event.StrictUtf8;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalType;
import org.apache.avro.Schema;
import org.apache.avro.Schema.Field;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;

/**
 * Turns Avro generic data into plain Java values for dimstream's writer, walking the value together with
 * its schema.
 *
 * <table>
 *   <caption>Avro to Java</caption>
 *   <tr><th>Avro</th><th>Java</th></tr>
 *   <tr><td>string ({@code Utf8} or any {@code CharSequence})</td><td>{@code String}: a {@code Utf8} decoded strictly</td></tr>
 *   <tr><td>int, long</td><td>{@code Long}</td></tr>
 *   <tr><td>float, double</td><td>{@code Double} (a float keeps its shortest decimal form: 0.1f gives 0.1)</td></tr>
 *   <tr><td>boolean</td><td>{@code Boolean}</td></tr>
 *   <tr><td>bytes, fixed</td><td>{@code byte[]} (a copy)</td></tr>
 *   <tr><td>enum</td><td>its symbol, a {@code String}</td></tr>
 *   <tr><td>union</td><td>the value of the branch it holds</td></tr>
 *   <tr><td>record</td><td>a nested {@code LinkedHashMap<String, Object>}, fields in schema order</td></tr>
 *   <tr><td>array / map</td><td>{@code List} / {@code LinkedHashMap<String, Object>}</td></tr>
 *   <tr><td>{@code timestamp-millis}, {@code timestamp-micros}, {@code timestamp-nanos}</td><td>{@code Instant}</td></tr>
 *   <tr><td>{@code date}</td><td>{@code LocalDate}</td></tr>
 *   <tr><td>{@code decimal} (bytes or fixed)</td><td>{@code BigDecimal} with the schema's scale</td></tr>
 *   <tr><td>{@code uuid} (string or fixed 16)</td><td>{@code String}</td></tr>
 * </table>
 *
 * <p>Logical types are recognised by hand from each schema's {@code logicalType} ({@link Schema#getLogicalType()});
 * the arithmetic is delegated to Avro's own {@link Conversions} and {@link TimeConversions}. Other logical
 * types ({@code time-*}, {@code local-timestamp-*}, {@code duration}, ...) come out as the value of their
 * underlying Avro type. Values that are already converted (an {@code Instant} in a timestamp field, as a
 * deserializer with logical type converters gives them) are accepted as they are.
 *
 * <p>Text is decoded strictly ({@link StrictUtf8}): a string, a map key or a uuid string whose bytes
 * are not UTF-8 (a bad sequence, an encoded surrogate) is an {@link IllegalArgumentException} naming
 * the field's path and the byte within the string, {@code Envelope.after.name: not valid UTF-8:
 * malformed byte sequence at byte 1}, never a U+FFFD ({@code Utf8.toString()} replaces silently).
 * The bytes reach this class only as a {@code Utf8}: dimstream's {@code AvroWireDeserializer} reads
 * every string as one, whatever the schema's {@code avro.java.string}; a {@code String} another
 * deserializer hands over was decoded by it, and is taken as it is.
 */
public final class AvroValues {

    private static final Conversions.DecimalConversion DECIMAL = new Conversions.DecimalConversion();
    private static final Conversions.UUIDConversion UUIDS = new Conversions.UUIDConversion();
    private static final TimeConversions.TimestampMillisConversion TIMESTAMP_MILLIS =
            new TimeConversions.TimestampMillisConversion();
    private static final TimeConversions.TimestampMicrosConversion TIMESTAMP_MICROS =
            new TimeConversions.TimestampMicrosConversion();
    private static final TimeConversions.TimestampNanosConversion TIMESTAMP_NANOS =
            new TimeConversions.TimestampNanosConversion();
    private static final TimeConversions.DateConversion DATE = new TimeConversions.DateConversion();
    /** Picks union branches; knows the converted Java types too. Configured once, never changed afterwards. */
    private static final GenericData UNIONS = AvroConversions.withAll(new GenericData());

    private AvroValues() {
    }

    /** The record's fields, in schema order, as plain Java values (see the class comment). */
    public static LinkedHashMap<String, Object> toMap(GenericRecord record) {
        Objects.requireNonNull(record, "record");
        return recordToMap(record, record.getSchema().getName());
    }

    /** One value of {@code schema} as a plain Java value; {@code null} stays {@code null}. */
    public static Object toJava(Schema schema, Object value) {
        return toJava(schema, value, schema.getName());
    }

    private static LinkedHashMap<String, Object> recordToMap(GenericRecord record, String path) {
        LinkedHashMap<String, Object> map = new LinkedHashMap<>();
        for (Field field : record.getSchema().getFields()) {
            map.put(field.name(), toJava(field.schema(), record.get(field.pos()), path + "." + field.name()));
        }
        return map;
    }

    private static Object toJava(Schema schema, Object value, String path) {
        if (value == null) {
            return null;
        }
        if (schema.getType() == Schema.Type.UNION) {
            int branch;
            try {
                branch = UNIONS.resolveUnion(schema, value);
            } catch (AvroRuntimeException e) {
                throw mismatch(schema, value, path);
            }
            return toJava(schema.getTypes().get(branch), value, path);
        }
        LogicalType logical = schema.getLogicalType();
        if (logical != null) {
            Object converted = logical(schema, logical, value, path);
            if (converted != null) {
                return converted;
            }
        }
        if (schema.getType() == Schema.Type.NULL) {
            return null;
        }
        Object converted = switch (schema.getType()) {
            case STRING -> value instanceof CharSequence ? text(value, path) : null;
            case INT, LONG, FLOAT, DOUBLE, BOOLEAN, ENUM -> primitive(schema.getType(), value);
            case BYTES, FIXED -> binary(schema.getType(), value);
            case RECORD, ARRAY, MAP -> nested(schema, value, path);
            default -> null;
        };
        if (converted == null) {
            throw mismatch(schema, value, path);
        }
        return converted;
    }

    /**
     * A string's text: a {@code Utf8}'s bytes decoded strictly, any other {@code CharSequence} as it is.
     *
     * @throws IllegalArgumentException {@code PATH: not valid UTF-8: ... at byte N} (N within the string)
     */
    private static String text(Object value, String path) {
        if (value instanceof Utf8 utf8) {
            try {
                return StrictUtf8.decode(utf8.getBytes(), 0, utf8.getByteLength());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(path + ": " + e.getMessage());
            }
        }
        return value.toString();
    }

    /** A number, boolean or enum symbol as its Java value, or {@code null} when {@code value} is not one of {@code type}. */
    private static Object primitive(Schema.Type type, Object value) {
        switch (type) {
            case INT:
            case LONG:
                return value instanceof Integer || value instanceof Long ? ((Number) value).longValue() : null;
            case FLOAT:
                return value instanceof Float f ? Double.valueOf(Float.toString(f)) : null;
            case DOUBLE:
                return value instanceof Double || value instanceof Float ? ((Number) value).doubleValue() : null;
            case BOOLEAN:
                return value instanceof Boolean ? value : null;
            case ENUM:
                return value instanceof GenericEnumSymbol<?> || value instanceof CharSequence || value instanceof Enum<?>
                        ? value.toString() : null;
            default:
                return null;
        }
    }

    /** Bytes or a fixed as a copy of its bytes, or {@code null} when {@code value} is not one of {@code type}. */
    private static byte[] binary(Schema.Type type, Object value) {
        if (type == Schema.Type.BYTES) {
            if (value instanceof ByteBuffer buffer) {
                return bytes(buffer);
            }
            if (value instanceof byte[] array) {
                return array.clone();
            }
            return null;
        }
        return value instanceof GenericFixed fixed ? fixed.bytes().clone() : null;
    }

    /** A record, array or map with its contents converted, or {@code null} when {@code value} is not one of its schema. */
    private static Object nested(Schema schema, Object value, String path) {
        switch (schema.getType()) {
            case RECORD:
                return value instanceof GenericRecord record ? recordToMap(record, path) : null;
            case ARRAY:
                if (value instanceof Collection<?> items) {
                    List<Object> list = new ArrayList<>(items.size());
                    int i = 0;
                    for (Object item : items) {
                        list.add(toJava(schema.getElementType(), item, path + "[" + i++ + "]"));
                    }
                    return list;
                }
                return null;
            case MAP:
                if (value instanceof Map<?, ?> entries) {
                    LinkedHashMap<String, Object> map = new LinkedHashMap<>();
                    for (Map.Entry<?, ?> entry : entries.entrySet()) {
                        String key = text(entry.getKey(), path + " (a map key)");
                        map.put(key, toJava(schema.getValueType(), entry.getValue(), path + "[" + key + "]"));
                    }
                    return map;
                }
                return null;
            default:
                return null;
        }
    }

    /** The Java value of a logical type this class converts, or {@code null} to treat the value by its Avro type. */
    private static Object logical(Schema schema, LogicalType logical, Object value, String path) {
        switch (logical.getName()) {
            case "timestamp-millis":
                return value instanceof Long l ? TIMESTAMP_MILLIS.fromLong(l, schema, logical) : instant(schema, value, path);
            case "timestamp-micros":
                return value instanceof Long l ? TIMESTAMP_MICROS.fromLong(l, schema, logical) : instant(schema, value, path);
            case "timestamp-nanos":
                return value instanceof Long l ? TIMESTAMP_NANOS.fromLong(l, schema, logical) : instant(schema, value, path);
            case "date":
                if (value instanceof Integer days) {
                    return DATE.fromInt(days, schema, logical);
                }
                if (value instanceof LocalDate) {
                    return value;
                }
                throw mismatch(schema, value, path);
            case "decimal":
                if (value instanceof ByteBuffer buffer) {
                    return DECIMAL.fromBytes(buffer.duplicate(), schema, logical);
                }
                if (value instanceof GenericFixed fixed) {
                    return DECIMAL.fromFixed(fixed, schema, logical);
                }
                if (value instanceof BigDecimal) {
                    return value;
                }
                throw mismatch(schema, value, path);
            case "uuid":
                if (value instanceof CharSequence) {
                    return text(value, path);
                }
                if (value instanceof UUID) {
                    return value.toString();
                }
                if (value instanceof GenericFixed fixed) {
                    return UUIDS.fromFixed(fixed, schema, logical).toString();
                }
                throw mismatch(schema, value, path);
            default:
                return null;
        }
    }

    private static Instant instant(Schema schema, Object value, String path) {
        if (value instanceof Instant instant) {
            return instant;
        }
        throw mismatch(schema, value, path);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer view = buffer.duplicate();
        byte[] bytes = new byte[view.remaining()];
        view.get(bytes);
        return bytes;
    }

    private static IllegalArgumentException mismatch(Schema schema, Object value, String path) {
        String type = schema.getLogicalType() != null ? schema.getLogicalType().getName() : schema.getType().getName();
        return new IllegalArgumentException(path + ": a " + value.getClass().getName()
                + " is not a value of Avro type " + type);
    }
}
