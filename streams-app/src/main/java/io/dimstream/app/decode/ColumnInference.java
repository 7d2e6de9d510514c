package io.dimstream.app.decode;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.entity.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The column type of a field new to an entity ({@code new-columns:}): from the record's schema when
 * it has one, else from the decoded value. A schema gives the type even of a NULL value; without
 * one a NULL says nothing, and the field waits for a record with a value.
 *
 * <p>Kafka Connect's JSON schema ({@code schemas.enable=true}): a semantic type by its name first
 * (the types {@link DebeziumValues} converts: dates, times, timestamps, decimals, JSON, UUIDs), then
 * the plain type: {@code int8}/{@code int16} smallint, {@code int32} integer, {@code int64} bigint,
 * {@code float}/{@code float32}/{@code float64}/{@code double} double precision, {@code boolean},
 * {@code string} text, {@code bytes} bytea. Without a schema, by the value: a string text, an
 * integer bigint (numeric beyond it), a decimal numeric, a boolean boolean, an object or array jsonb,
 * and the typed values of semantic conversions (an Avro record's logical types, a Debezium
 * {@code encodings:} hint) their types.
 */
public final class ColumnInference {

    private ColumnInference() {
    }

    private static final Map<String, ColumnType> SEMANTIC = Map.ofEntries(
            Map.entry("io.debezium.time.Date", ColumnType.DATE), Map.entry("org.apache.kafka.connect.data.Date", ColumnType.DATE),
            Map.entry("io.debezium.time.Time", ColumnType.TIME), Map.entry("org.apache.kafka.connect.data.Time", ColumnType.TIME),
            Map.entry("io.debezium.time.MicroTime", ColumnType.TIME), Map.entry("io.debezium.time.NanoTime", ColumnType.TIME),
            Map.entry("io.debezium.time.Timestamp", ColumnType.TIMESTAMP),
            Map.entry("org.apache.kafka.connect.data.Timestamp", ColumnType.TIMESTAMP),
            Map.entry("io.debezium.time.MicroTimestamp", ColumnType.TIMESTAMP),
            Map.entry("io.debezium.time.NanoTimestamp", ColumnType.TIMESTAMP),
            Map.entry("io.debezium.time.ZonedTimestamp", ColumnType.TIMESTAMPTZ),
            Map.entry("io.debezium.time.ZonedTime", ColumnType.TEXT),
            Map.entry("org.apache.kafka.connect.data.Decimal", ColumnType.NUMERIC),
            Map.entry("io.debezium.data.VariableScaleDecimal", ColumnType.NUMERIC),
            Map.entry("io.debezium.data.Json", ColumnType.JSONB),
            Map.entry("io.debezium.data.Uuid", ColumnType.UUID_TYPE));

    private static final Map<String, ColumnType> PLAIN = Map.ofEntries(
            Map.entry("int8", ColumnType.SMALLINT), Map.entry("int16", ColumnType.SMALLINT), Map.entry("int32", ColumnType.INTEGER),
            Map.entry("int64", ColumnType.BIGINT), Map.entry("float", ColumnType.DOUBLE), Map.entry("float32", ColumnType.DOUBLE),
            Map.entry("float64", ColumnType.DOUBLE), Map.entry("double", ColumnType.DOUBLE), Map.entry("boolean", ColumnType.BOOLEAN),
            Map.entry("string", ColumnType.TEXT), Map.entry("bytes", ColumnType.BYTEA));

    /**
     * The column types of a Debezium envelope's JSON schema: its {@code after} image's fields (else
     * its {@code before}'s); empty when it has neither or a field's type is not known.
     */
    public static Map<String, ColumnType> fromJsonSchema(JsonNode envelopeSchema) {
        Map<String, ColumnType> out = new LinkedHashMap<>();
        if (envelopeSchema == null || !envelopeSchema.path("fields").isArray()) {
            return out;
        }
        JsonNode image = null;
        for (String name : new String[] {"before", "after"}) {
            for (JsonNode f : envelopeSchema.get("fields")) {
                if (name.equals(f.path("field").asText()) && f.path("fields").isArray()) {
                    image = f; // after wins: it is read last
                }
            }
        }
        if (image == null) {
            return out;
        }
        for (JsonNode column : image.get("fields")) {
            String field = column.path("field").asText(null);
            if (field == null) {
                continue;
            }
            ofJsonSchemaField(column).ifPresent(t -> out.put(field, t));
        }
        return out;
    }

    /** One field's schema: its semantic name first, then its plain type. */
    static Optional<ColumnType> ofJsonSchemaField(JsonNode column) {
        ColumnType semantic = SEMANTIC.get(column.path("name").asText(""));
        if (semantic != null) {
            return Optional.of(semantic);
        }
        return Optional.ofNullable(PLAIN.get(column.path("type").asText("")));
    }

    /**
     * The column types of a Debezium envelope's Avro schema: its {@code after} image's fields (else
     * its {@code before}'s); empty when it has neither. See {@link #fromAvroRow}.
     */
    public static Map<String, ColumnType> fromAvroEnvelope(org.apache.avro.Schema envelope) {
        if (envelope.getType() != org.apache.avro.Schema.Type.RECORD) {
            return new LinkedHashMap<>();
        }
        for (String name : new String[] {"after", "before"}) {
            org.apache.avro.Schema.Field image = envelope.getField(name);
            org.apache.avro.Schema row = image == null ? null : DebeziumValues.nonNull(image.schema());
            if (row != null && row.getType() == org.apache.avro.Schema.Type.RECORD) {
                return fromAvroRow(row);
            }
        }
        return new LinkedHashMap<>();
    }

    /**
     * The column types of an Avro row record's fields (an optional field's non-null branch): a
     * Kafka Connect semantic type by its {@code connect.name} first (as {@link #fromJsonSchema}),
     * then Avro's logical types ({@code date}, {@code time-*}, {@code timestamp-*} timestamptz,
     * {@code local-timestamp-*} timestamp, {@code decimal} numeric, {@code uuid}), then the plain type:
     * {@code int} integer ({@code connect.type} int8/int16: smallint), {@code long} bigint,
     * {@code float}/{@code double} double precision, {@code boolean}, {@code string} text,
     * {@code bytes}/{@code fixed} bytea. Fields of other types are left out (their values decide).
     */
    public static Map<String, ColumnType> fromAvroRow(org.apache.avro.Schema row) {
        Map<String, ColumnType> out = new LinkedHashMap<>();
        for (org.apache.avro.Schema.Field f : row.getFields()) {
            ofAvroField(DebeziumValues.nonNull(f.schema())).ifPresent(t -> out.put(f.name(), t));
        }
        return out;
    }

    static Optional<ColumnType> ofAvroField(org.apache.avro.Schema s) {
        ColumnType semantic = SEMANTIC.get(String.valueOf(s.getProp("connect.name")));
        if (semantic != null) {
            return Optional.of(semantic);
        }
        if (s.getLogicalType() != null) {
            ColumnType logical = switch (s.getLogicalType().getName()) {
                case "date" -> ColumnType.DATE;
                case "time-millis", "time-micros" -> ColumnType.TIME;
                case "timestamp-millis", "timestamp-micros", "timestamp-nanos" -> ColumnType.TIMESTAMPTZ;
                case "local-timestamp-millis", "local-timestamp-micros", "local-timestamp-nanos" -> ColumnType.TIMESTAMP;
                case "decimal" -> ColumnType.NUMERIC;
                case "uuid" -> ColumnType.UUID_TYPE;
                default -> null;
            };
            if (logical != null) {
                return Optional.of(logical);
            }
        }
        return Optional.ofNullable(switch (s.getType()) {
            case INT -> "int8".equals(s.getProp("connect.type")) || "int16".equals(s.getProp("connect.type")) ? ColumnType.SMALLINT
                    : ColumnType.INTEGER;
            case LONG -> ColumnType.BIGINT;
            case FLOAT, DOUBLE -> ColumnType.DOUBLE;
            case BOOLEAN -> ColumnType.BOOLEAN;
            case STRING, ENUM -> ColumnType.TEXT;
            case BYTES, FIXED -> ColumnType.BYTEA;
            default -> null;
        });
    }

    /** The type a decoded value gives, empty for NULL (nothing to infer from). */
    public static Optional<ColumnType> ofValue(Object v) {
        ColumnType t;
        if (v == null) {
            t = null;
        } else if (v instanceof CharSequence) {
            t = ColumnType.TEXT;
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            t = ColumnType.BIGINT;
        } else if (v instanceof BigInteger b) {
            t = b.bitLength() < 64 ? ColumnType.BIGINT : ColumnType.NUMERIC;
        } else if (v instanceof BigDecimal) {
            t = ColumnType.NUMERIC;
        } else if (v instanceof Double || v instanceof Float) {
            t = ColumnType.DOUBLE;
        } else if (v instanceof Boolean) {
            t = ColumnType.BOOLEAN;
        } else if (v instanceof Map<?, ?> || v instanceof Collection<?> || v instanceof Object[]) {
            t = ColumnType.JSONB;
        } else if (v instanceof LocalDate) {
            t = ColumnType.DATE;
        } else if (v instanceof LocalTime) {
            t = ColumnType.TIME;
        } else if (v instanceof LocalDateTime) {
            t = ColumnType.TIMESTAMP;
        } else if (v instanceof Instant) {
            t = ColumnType.TIMESTAMPTZ;
        } else if (v instanceof UUID) {
            t = ColumnType.UUID_TYPE;
        } else if (v instanceof byte[] || v instanceof ByteBuffer) {
            t = ColumnType.BYTEA;
        } else {
            t = ColumnType.TEXT; // anything else lands as its text
        }
        return Optional.ofNullable(t);
    }
}
