package io.dimstream.app.decode;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.config.model.ValueEncoding;
import io.dimstream.config.model.ValueEncoding.Kind;
import io.dimstream.db.entity.ColumnType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;

/**
 * Debezium's encodings of column values to typed values: the Debezium decoders call it on the
 * {@code before} and {@code after} images before {@link DebeziumEnvelope} maps the envelope, so a
 * value lands in a typed column ({@link ColumnType#coerce} takes it from there) and hashes as the
 * same value given by any other format.
 *
 * <p>How each column is encoded, first that applies:
 * <ol>
 *   <li>the record's schema names a semantic type dimstream converts ({@link ValueEncoding.Kind}):
 *       in Kafka Connect's JSON ({@code schemas.enable=true}) the {@code name} of the column's field
 *       schema, a Decimal's scale in its {@code parameters}; in Avro the {@code connect.name} of the
 *       field's schema (a Decimal's scale in {@code connect.parameters} or the {@code decimal}
 *       logical type), else its Avro logical type ({@code date}, {@code time-millis},
 *       {@code time-micros}, {@code timestamp-*}, {@code local-timestamp-*}, {@code decimal},
 *       {@code uuid});</li>
 *   <li>the entity's {@code encodings:} hint for the column: for records without a schema, or a
 *       schema that gives the column no semantic type;</li>
 *   <li>a JSON schema's plain {@code bytes} type: base64 to bytes;</li>
 *   <li>else the value as JSON or Avro gives it.</li>
 * </ol>
 *
 * <table>
 *   <caption>Encodings and the typed values they give</caption>
 *   <tr><th>semantic type</th><th>encoded as</th><th>typed value</th></tr>
 *   <tr><td>io.debezium.time.Date, org.apache.kafka.connect.data.Date, Avro date</td><td>int days since 1970-01-01</td><td>LocalDate</td></tr>
 *   <tr><td>io.debezium.time.Time, org.apache.kafka.connect.data.Time, Avro time-millis</td><td>int ms past midnight</td><td>LocalTime</td></tr>
 *   <tr><td>io.debezium.time.MicroTime, Avro time-micros / NanoTime</td><td>long µs / ns past midnight</td><td>LocalTime (ns cut to µs)</td></tr>
 *   <tr><td>io.debezium.time.Timestamp, org.apache.kafka.connect.data.Timestamp, Avro timestamp-millis</td><td>long ms since the epoch</td><td>LocalDateTime</td></tr>
 *   <tr><td>io.debezium.time.MicroTimestamp / NanoTimestamp, Avro timestamp-micros / -nanos</td><td>long µs / ns since the epoch</td><td>LocalDateTime (ns cut to µs)</td></tr>
 *   <tr><td>io.debezium.time.ZonedTimestamp</td><td>ISO-8601 string with offset</td><td>Instant</td></tr>
 *   <tr><td>io.debezium.time.ZonedTime</td><td>ISO-8601 time with offset</td><td>the string (no timetz column type)</td></tr>
 *   <tr><td>org.apache.kafka.connect.data.Decimal, Avro decimal</td><td>bytes (base64 in JSON): big-endian two's-complement unscaled value; scale in the schema</td><td>BigDecimal</td></tr>
 *   <tr><td>io.debezium.data.VariableScaleDecimal</td><td>struct {scale, value (bytes)}</td><td>BigDecimal</td></tr>
 *   <tr><td>io.debezium.data.Json</td><td>string</td><td>the JSON text</td></tr>
 *   <tr><td>io.debezium.data.Uuid, Avro uuid</td><td>string</td><td>UUID</td></tr>
 *   <tr><td>bytes</td><td>base64 in JSON</td><td>byte[]</td></tr>
 * </table>
 * A column declared with a number type (smallint, integer, bigint, numeric, double precision)
 * keeps the number a temporal encoding carries (days, ms, µs, ns), as before dimstream converted
 * them: declaring such a column with a number type was the way to take it.
 *
 * <p>A timestamp without time zone is encoded by Debezium as if its wall-clock time were UTC; it is
 * turned back into that wall-clock time (a LocalDateTime), whatever the JVM's time zone. An Avro
 * timestamp a deserializer already converted to an Instant is read back in UTC the same way.
 *
 * <p>A value that does not decode (bad base64, an integer where a string belongs, days or epoch
 * units beyond 0001..9999, a time beyond a day, a Decimal whose schema has no scale) is an
 * {@link IllegalArgumentException} naming the column and the encoding, which the decoders turn
 * into a {@link Decoded.Failed}. The value meaning "unavailable" ({@code unavailable-value:},
 * Debezium's placeholder for an unchanged TOAST column) passes through unconverted, as a string
 * or as the bytes Debezium sends for it in a bytes column.
 *
 * <p>Immutable and thread-safe.
 */
final class DebeziumValues {

    /** Unscaled bytes beyond this cannot be within PostgreSQL's numeric (147,455 digits, ~61,230 bytes). */
    private static final int MAX_DECIMAL_BYTES = 61_300;
    private static final long NANOS_PER_DAY = 86_400_000_000_000L;

    /**
     * How one column is encoded: an encoding, or why its encoding cannot be known (a Decimal without
     * scale). {@code plainType}: the schema gives only a plain type (JSON's {@code bytes}), which the
     * entity's hint for the column overrides.
     */
    record Encoding(ValueEncoding encoding, String problem, boolean plainType) {
        static Encoding of(ValueEncoding e) {
            return new Encoding(e, null, false);
        }

        static Encoding problem(String why) {
            return new Encoding(null, why, false);
        }
    }

    /** No hints, no placeholder, no column types: every column by its record's schema. */
    static final DebeziumValues SCHEMAS_ONLY = new DebeziumValues(Map.of(), null, Map.of(), null);

    private static final Set<ColumnType> NUMBER_TYPES = Set.of(ColumnType.SMALLINT, ColumnType.INTEGER, ColumnType.BIGINT,
            ColumnType.NUMERIC, ColumnType.DOUBLE);
    private static final Set<Kind> EPOCH_NUMBERS = Set.of(Kind.DATE, Kind.TIME, Kind.MICRO_TIME, Kind.NANO_TIME, Kind.TIMESTAMP,
            Kind.MICRO_TIMESTAMP, Kind.NANO_TIMESTAMP, Kind.CONNECT_DATE, Kind.CONNECT_TIME, Kind.CONNECT_TIMESTAMP);

    private final Map<String, ValueEncoding> hints;
    private final String unavailable;
    private final byte[] unavailableBytes;
    private final Map<String, ColumnType> columnTypes;
    private final Set<String> onlyColumns;

    /**
     * @param encodings   the entity's {@code encodings:} (column to encoding name, checked by the config)
     * @param unavailable the entity's {@code unavailable-value:}, or null
     * @param columnTypes the entity's declared column types (a number column keeps a temporal number)
     * @param onlyColumns the columns to convert, or null for all (with {@code undeclared-columns: ignore}
     *                    the others are dropped, so their encodings do not matter)
     */
    DebeziumValues(Map<String, String> encodings, String unavailable, Map<String, ColumnType> columnTypes, Set<String> onlyColumns) {
        Map<String, ValueEncoding> parsed = new LinkedHashMap<>();
        encodings.forEach((c, e) -> parsed.put(c, ValueEncoding.parse(e)));
        this.hints = Collections.unmodifiableMap(parsed);
        this.unavailable = unavailable;
        this.unavailableBytes = unavailable == null ? null : unavailable.getBytes(StandardCharsets.UTF_8);
        this.columnTypes = Map.copyOf(columnTypes);
        this.onlyColumns = onlyColumns == null ? null : Set.copyOf(onlyColumns);
    }

    // ---- the encodings a record's schema gives -----------------------------------------------------

    /**
     * Per image ({@code before}, {@code after}), per column, the encoding Kafka Connect's JSON schema of
     * the envelope gives; empty maps for a schema without them.
     */
    static Map<String, Map<String, Encoding>> fromJsonSchema(JsonNode envelopeSchema) {
        Map<String, Map<String, Encoding>> out = new LinkedHashMap<>();
        JsonNode fields = envelopeSchema == null ? null : envelopeSchema.get("fields");
        if (fields == null || !fields.isArray()) {
            return out;
        }
        for (JsonNode image : fields) {
            String name = image.path("field").asText();
            if (!name.equals("before") && !name.equals("after")) {
                continue;
            }
            Map<String, Encoding> columns = new LinkedHashMap<>();
            for (JsonNode column : image.path("fields")) {
                Encoding e = jsonColumn(column);
                if (e != null) {
                    columns.put(column.path("field").asText(), e);
                }
            }
            out.put(name, columns);
        }
        return out;
    }

    private static Encoding jsonColumn(JsonNode column) {
        String semantic = column.path("name").isTextual() ? column.get("name").asText() : null;
        Kind kind = semantic == null ? null : Kind.byName(semantic).orElse(null);
        if (kind == Kind.DECIMAL) {
            JsonNode scale = column.path("parameters").path("scale");
            return decimal(scale.isMissingNode() || scale.isNull() ? null : scale.asText(), "parameters.scale");
        }
        if (kind != null) {
            return Encoding.of(ValueEncoding.of(kind));
        }
        if (semantic == null && "bytes".equals(column.path("type").asText())) {
            return new Encoding(ValueEncoding.of(Kind.BYTES), null, true);
        }
        return null;
    }

    private static Encoding decimal(String scale, String where) {
        if (scale == null) {
            return Encoding.problem(Kind.DECIMAL.debeziumName() + " without a scale (" + where + " is missing from the record's schema)");
        }
        try {
            return Encoding.of(ValueEncoding.decimal(Integer.parseInt(scale.trim())));
        } catch (IllegalArgumentException e) { // NumberFormatException too
            return Encoding.problem(Kind.DECIMAL.debeziumName() + " with scale \"" + scale + "\" in " + where
                    + " of the record's schema: " + (e instanceof NumberFormatException ? "not an integer" : e.getMessage()));
        }
    }

    /** Per image ({@code before}, {@code after}), per column, the encoding the Avro schema of the envelope gives. */
    static Map<String, Map<String, Encoding>> fromAvroSchema(Schema envelope) {
        Map<String, Map<String, Encoding>> out = new LinkedHashMap<>();
        if (envelope.getType() != Schema.Type.RECORD) {
            return out;
        }
        for (String name : List.of("before", "after")) {
            Schema.Field image = envelope.getField(name);
            Schema row = image == null ? null : nonNull(image.schema());
            if (row == null || row.getType() != Schema.Type.RECORD) {
                continue;
            }
            Map<String, Encoding> columns = new LinkedHashMap<>();
            for (Schema.Field f : row.getFields()) {
                Encoding e = avroColumn(nonNull(f.schema()));
                if (e != null) {
                    columns.put(f.name(), e);
                }
            }
            out.put(name, columns);
        }
        return out;
    }

    /** The branch of an optional's union that is not null (Debezium's optional fields), else the schema itself. */
    static Schema nonNull(Schema s) {
        if (s.getType() != Schema.Type.UNION) {
            return s;
        }
        Schema only = null;
        for (Schema branch : s.getTypes()) {
            if (branch.getType() != Schema.Type.NULL) {
                if (only != null) {
                    return s; // a union of several types: no single encoding
                }
                only = branch;
            }
        }
        return only == null ? s : only;
    }

    private static Encoding avroColumn(Schema s) {
        Kind kind = Kind.byName(s.getProp("connect.name")).orElse(null);
        LogicalType logical = s.getLogicalType();
        if (kind == Kind.DECIMAL) {
            if (logical instanceof LogicalTypes.Decimal d) {
                return Encoding.of(ValueEncoding.decimal(d.getScale()));
            }
            Object params = s.getObjectProp("connect.parameters");
            Object scale = params instanceof Map<?, ?> m ? m.get("scale") : null;
            return decimal(scale == null ? null : scale.toString(), "connect.parameters.scale");
        }
        if (kind != null) {
            return Encoding.of(ValueEncoding.of(kind));
        }
        if (logical == null) {
            return null;
        }
        return switch (logical.getName()) {
            case "date" -> Encoding.of(ValueEncoding.of(Kind.DATE));
            case "time-millis" -> Encoding.of(ValueEncoding.of(Kind.TIME));
            case "time-micros" -> Encoding.of(ValueEncoding.of(Kind.MICRO_TIME));
            case "timestamp-millis", "local-timestamp-millis" -> Encoding.of(ValueEncoding.of(Kind.TIMESTAMP));
            case "timestamp-micros", "local-timestamp-micros" -> Encoding.of(ValueEncoding.of(Kind.MICRO_TIMESTAMP));
            case "timestamp-nanos", "local-timestamp-nanos" -> Encoding.of(ValueEncoding.of(Kind.NANO_TIMESTAMP));
            case "decimal" -> Encoding.of(ValueEncoding.decimal(((LogicalTypes.Decimal) logical).getScale()));
            case "uuid" -> Encoding.of(ValueEncoding.of(Kind.UUID));
            default -> null;
        };
    }

    // ---- conversion ------------------------------------------------------------------------------

    /**
     * Converts the {@code before} and {@code after} images of an envelope in place.
     *
     * @param envelope the envelope as plain values ({@code NativeEventJson.toMap}, {@code AvroValues.toMap}), modifiable
     * @param bySchema {@link #fromJsonSchema} or {@link #fromAvroSchema}; empty for a record without a schema
     * @throws IllegalArgumentException naming the column and the encoding of a value that does not decode
     */
    @SuppressWarnings("unchecked")
    void convertImages(Map<String, Object> envelope, Map<String, Map<String, Encoding>> bySchema) {
        for (String image : List.of("before", "after")) {
            if (envelope.get(image) instanceof Map<?, ?> row) {
                envelope.put(image, convertRow((Map<String, Object>) row, bySchema.getOrDefault(image, Map.of())));
            }
        }
    }

    private Map<String, Object> convertRow(Map<String, Object> row, Map<String, Encoding> bySchema) {
        Map<String, Object> out = new LinkedHashMap<>(row);
        for (Map.Entry<String, Object> column : out.entrySet()) {
            String c = column.getKey();
            if (column.getValue() == null || (onlyColumns != null && !onlyColumns.contains(c))) {
                continue;
            }
            Encoding schema = bySchema.get(c);
            ValueEncoding hint = hints.get(c);
            Encoding e = schema != null && !schema.plainType() ? schema : hint != null ? Encoding.of(hint) : schema;
            if (e != null && e.encoding() != null && EPOCH_NUMBERS.contains(e.encoding().kind())
                    && columnTypes.get(c) != null && NUMBER_TYPES.contains(columnTypes.get(c))) {
                continue; // a number column takes the number as it is
            }
            if (e != null) {
                column.setValue(convert(c, column.getValue(), e));
            }
        }
        return out;
    }

    private Object convert(String column, Object raw, Encoding e) {
        if (unavailable != null && unavailable.equals(raw)) {
            return raw;
        }
        if (e.encoding() == null) {
            throw new IllegalArgumentException("column '" + column + "': " + e.problem());
        }
        try {
            return convert(raw, e.encoding());
        } catch (IllegalArgumentException | DateTimeException | ArithmeticException ex) {
            throw new IllegalArgumentException("column '" + column + "': " + e.encoding().configText() + " " + ex.getMessage());
        }
    }

    /**
     * One value, as JSON ({@code NativeEventJson}: BigInteger, BigDecimal, String, Map) or Avro
     * ({@code AvroValues}: Long, byte[], String, Map, and the values of Avro's logical types) gives it.
     */
    private Object convert(Object raw, ValueEncoding enc) {
        return switch (enc.kind()) {
            case DATE, CONNECT_DATE -> date(raw);
            case TIME, CONNECT_TIME -> time(raw, 1_000_000L, "ms");
            case MICRO_TIME -> time(raw, 1_000L, "µs");
            case NANO_TIME -> time(raw, 1L, "ns");
            case TIMESTAMP, CONNECT_TIMESTAMP -> timestamp(raw, 1_000L, "ms");
            case MICRO_TIMESTAMP -> timestamp(raw, 1_000_000L, "µs");
            case NANO_TIMESTAMP -> timestamp(raw, 1_000_000_000L, "ns");
            case ZONED_TIMESTAMP -> ColumnType.parseInstant(string(raw)).orElseThrow(() ->
                    new IllegalArgumentException("value " + quoted(raw) + " is not an ISO-8601 timestamp with an offset"));
            case ZONED_TIME, JSON -> string(raw);
            case UUID -> uuid(raw);
            case DECIMAL -> raw instanceof BigDecimal d ? d : decimal(bytes(raw), enc.scale());
            case VARIABLE_SCALE_DECIMAL -> variableScale(raw);
            case BYTES -> {
                byte[] b = bytes(raw);
                // Debezium sends its placeholder for an unchanged value in a bytes column as the placeholder's bytes
                yield unavailableBytes != null && Arrays.equals(b, unavailableBytes) ? unavailable : b;
            }
        };
    }

    private static LocalDate date(Object raw) {
        if (raw instanceof LocalDate d) {
            return d;
        }
        long days = integral(raw, "days since 1970-01-01");
        if (days < ColumnType.MIN_DATE.toEpochDay() || days > ColumnType.MAX_DATE.toEpochDay()) {
            throw new IllegalArgumentException("value " + days + " (days since 1970-01-01) is outside " + ColumnType.MIN_DATE + " to "
                    + ColumnType.MAX_DATE);
        }
        return LocalDate.ofEpochDay(days);
    }

    /** @param nanosPerUnit nanoseconds in one unit of the value */
    private static LocalTime time(Object raw, long nanosPerUnit, String unit) {
        if (raw instanceof LocalTime t) {
            return t;
        }
        long v = integral(raw, unit + " past midnight");
        long perDay = NANOS_PER_DAY / nanosPerUnit;
        if (v < 0 || v >= perDay) {
            throw new IllegalArgumentException("value " + v + " (" + unit + " past midnight) is outside a day (0 to " + (perDay - 1)
                    + "); a MySQL TIME beyond a day is a duration: leave the column's encoding out and declare it bigint");
        }
        return LocalTime.ofNanoOfDay(v * nanosPerUnit);
    }

    /** @param perSecond units in one second */
    private static LocalDateTime timestamp(Object raw, long perSecond, String unit) {
        if (raw instanceof LocalDateTime t) {
            return t;
        }
        if (raw instanceof Instant i) { // an Avro timestamp a deserializer converted: read back in UTC
            return inRange(i, i.toString());
        }
        long v = integral(raw, unit + " since 1970-01-01T00:00");
        Instant i = Instant.ofEpochSecond(Math.floorDiv(v, perSecond), Math.floorMod(v, perSecond) * (1_000_000_000L / perSecond));
        return inRange(i, v + " (" + unit + " since 1970-01-01T00:00)");
    }

    private static LocalDateTime inRange(Instant i, String shown) {
        if (!ColumnType.inRange(i.truncatedTo(java.time.temporal.ChronoUnit.MICROS))) {
            throw new IllegalArgumentException("value " + shown + " is outside " + ColumnType.CANONICAL_LOCAL_TIMESTAMP.format(
                    ColumnType.MIN_LOCAL_TIMESTAMP) + " to " + ColumnType.CANONICAL_LOCAL_TIMESTAMP.format(ColumnType.MAX_LOCAL_TIMESTAMP));
        }
        return LocalDateTime.ofInstant(i, ZoneOffset.UTC);
    }

    private static UUID uuid(Object raw) {
        if (raw instanceof UUID u) {
            return u;
        }
        String s = string(raw);
        try {
            return UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("value " + quoted(s) + " is not a UUID");
        }
    }

    private static BigDecimal variableScale(Object raw) {
        if (raw instanceof BigDecimal d) {
            return d;
        }
        if (!(raw instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException("value " + describe(raw) + " is not a struct {scale, value}");
        }
        if (m.get("scale") == null || m.get("value") == null) {
            throw new IllegalArgumentException("value has no " + (m.get("scale") == null ? "scale" : "value"));
        }
        long scale = integral(m.get("scale"), "scale");
        if (Math.abs(scale) > ValueEncoding.MAX_SCALE) {
            throw new IllegalArgumentException("scale " + scale + " is beyond numeric's (" + ValueEncoding.MAX_SCALE + ")");
        }
        return decimal(bytes(m.get("value")), (int) scale);
    }

    private static BigDecimal decimal(byte[] unscaled, int scale) {
        if (unscaled.length == 0) {
            throw new IllegalArgumentException("value has no bytes (an unscaled value takes at least one)");
        }
        if (unscaled.length > MAX_DECIMAL_BYTES) {
            throw new IllegalArgumentException("value of " + unscaled.length + " bytes is beyond any value PostgreSQL's numeric holds");
        }
        return new BigDecimal(new BigInteger(unscaled), scale);
    }

    private static byte[] bytes(Object raw) {
        if (raw instanceof byte[] b) {
            return b;
        }
        if (raw instanceof ByteBuffer buffer) {
            return io.dimstream.db.entity.ColumnType.bytesOf(buffer);
        }
        if (raw instanceof String s) {
            try {
                return Base64.getDecoder().decode(s);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("value " + quoted(s) + " is not base64: " + e.getMessage());
            }
        }
        throw new IllegalArgumentException("value " + describe(raw) + " is not bytes (base64 in JSON)");
    }

    private static String string(Object raw) {
        if (raw instanceof String s) {
            return s;
        }
        throw new IllegalArgumentException("value " + describe(raw) + " is not a string");
    }

    /** An integral number of units, as JSON (BigInteger, BigDecimal) or Avro (Long) gives it, within a long. */
    private static long integral(Object raw, String what) {
        if (raw instanceof Long || raw instanceof Integer || raw instanceof Short || raw instanceof Byte) {
            return ((Number) raw).longValue();
        }
        if (raw instanceof BigInteger b && b.bitLength() <= 63) {
            return b.longValue();
        }
        if (raw instanceof BigDecimal d && (d.signum() == 0 || (long) d.precision() - d.scale() <= 19)) {
            try {
                return d.longValueExact();
            } catch (ArithmeticException e) {
                // a fraction, or beyond a long: refused below
            }
        }
        throw new IllegalArgumentException("value " + describe(raw) + " is not an integer of " + what);
    }

    private static String describe(Object v) {
        if (v instanceof String s) {
            return quoted(s);
        }
        if (v instanceof Map<?, ?> m) {
            return "an object of " + m.size() + " field" + (m.size() == 1 ? "" : "s");
        }
        if (v instanceof List<?> l) {
            return "an array of " + l.size() + " element" + (l.size() == 1 ? "" : "s");
        }
        if (v instanceof byte[] b) {
            return "of " + b.length + " bytes";
        }
        String text = String.valueOf(v);
        return text.length() > 60 ? text.substring(0, 57) + "..." : text;
    }

    private static String quoted(Object v) {
        String s = String.valueOf(v);
        return "\"" + (s.length() > 60 ? s.substring(0, 57) + "..." : s) + "\"";
    }
}
