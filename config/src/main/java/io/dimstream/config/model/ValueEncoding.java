package io.dimstream.config.model;

import io.dimstream.db.entity.ColumnType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a column's value is encoded in a change-data-capture record: a Debezium or Kafka Connect
 * semantic type (the {@code name} of a field's schema in Kafka Connect's JSON, the
 * {@code connect.name} of an Avro field), or the plain {@code bytes} type. The Debezium formats
 * read a record's schema for it; the entity key {@code encodings:} names it per column for records
 * without a schema ({@code schemas.enable=false}), e.g.
 * <pre>
 * encodings:
 *   born: io.debezium.time.Date
 *   price: "org.apache.kafka.connect.data.Decimal(scale=2)"
 * </pre>
 * The names are Debezium's own, case and all ({@link Kind}); a Decimal takes its scale in
 * parentheses, {@code (scale=N)}, which a record's schema carries in {@code parameters.scale} and
 * a hint must say. What each gives is the typed value of {@link #sample()}'s class, which the
 * column's type then takes ({@link ColumnType#coerce}): the config refuses an encoding whose value
 * the column cannot take.
 *
 * @param scale the Decimal's scale; 0 for the other kinds
 */
public record ValueEncoding(Kind kind, int scale) {

    /** The encodings dimstream converts, by the name Debezium gives them. */
    public enum Kind implements ConfigEnum {
        /** int32 days since 1970-01-01: a date. */
        DATE("io.debezium.time.Date", "a date"),
        /** int32 milliseconds past midnight: a time. */
        TIME("io.debezium.time.Time", "a time"),
        /** int64 microseconds past midnight: a time. */
        MICRO_TIME("io.debezium.time.MicroTime", "a time"),
        /** int64 nanoseconds past midnight: a time (cut to microseconds). */
        NANO_TIME("io.debezium.time.NanoTime", "a time"),
        /** int64 milliseconds since the epoch, a local date-time encoded as if UTC: a timestamp. */
        TIMESTAMP("io.debezium.time.Timestamp", "a timestamp"),
        /** int64 microseconds since the epoch, local as for Timestamp: a timestamp. */
        MICRO_TIMESTAMP("io.debezium.time.MicroTimestamp", "a timestamp"),
        /** int64 nanoseconds since the epoch, local as for Timestamp: a timestamp (cut to microseconds). */
        NANO_TIMESTAMP("io.debezium.time.NanoTimestamp", "a timestamp"),
        /** An ISO-8601 string with an offset: an instant. */
        ZONED_TIMESTAMP("io.debezium.time.ZonedTimestamp", "an instant"),
        /** An ISO-8601 time with an offset: kept as its text (dimstream has no timetz). */
        ZONED_TIME("io.debezium.time.ZonedTime", "a time with an offset, as text"),
        /** A JSON document as a string: a JSON text for a jsonb column. */
        JSON("io.debezium.data.Json", "a JSON text"),
        /** A UUID as a string. */
        UUID("io.debezium.data.Uuid", "a UUID"),
        /** A struct {scale int32, value bytes}: a decimal of the value's own scale. */
        VARIABLE_SCALE_DECIMAL("io.debezium.data.VariableScaleDecimal", "a decimal"),
        /** Bytes (base64 in JSON) of the big-endian two's-complement unscaled value, with a fixed scale: a decimal. */
        DECIMAL("org.apache.kafka.connect.data.Decimal", "a decimal"),
        /** Kafka Connect's Date: int32 days since 1970-01-01. */
        CONNECT_DATE("org.apache.kafka.connect.data.Date", "a date"),
        /** Kafka Connect's Time: int32 milliseconds past midnight. */
        CONNECT_TIME("org.apache.kafka.connect.data.Time", "a time"),
        /** Kafka Connect's Timestamp: int64 milliseconds since the epoch; from Debezium, a local date-time as if UTC. */
        CONNECT_TIMESTAMP("org.apache.kafka.connect.data.Timestamp", "a timestamp"),
        /** Kafka Connect's bytes type (base64 in JSON). */
        BYTES("bytes", "bytes");

        private final String debeziumName;
        private final String gives;

        Kind(String debeziumName, String gives) {
            this.debeziumName = debeziumName;
            this.gives = gives;
        }

        /** The semantic type's name as Debezium writes it in a schema. */
        public String debeziumName() {
            return debeziumName;
        }

        /** Its name in {@code encodings:}: Debezium's own ({@link #debeziumName}). */
        @Override
        public String configName() {
            return debeziumName;
        }

        /** The kind whose schema name this is; empty for a name dimstream does not convert. */
        public static Optional<Kind> byName(String name) {
            return ConfigEnum.find(Kind.class, name);
        }
    }

    /** Kafka Connect's decimal scale is any int; beyond PostgreSQL's numeric no value fits. */
    public static final int MAX_SCALE = ColumnType.NUMERIC_MAX_SCALE;

    private static final Pattern DECIMAL_WITH_SCALE =
            Pattern.compile("org\\.apache\\.kafka\\.connect\\.data\\.Decimal\\s*\\(\\s*scale\\s*=\\s*(-?\\d{1,6})\\s*\\)");

    public ValueEncoding {
        if (kind != Kind.DECIMAL && scale != 0) {
            throw new IllegalArgumentException(kind.debeziumName + " has no scale");
        }
        if (Math.abs(scale) > MAX_SCALE) {
            throw new IllegalArgumentException("a Decimal's scale must be between -" + MAX_SCALE + " and " + MAX_SCALE + ", got " + scale);
        }
    }

    public static ValueEncoding of(Kind kind) {
        return new ValueEncoding(kind, 0);
    }

    public static ValueEncoding decimal(int scale) {
        return new ValueEncoding(Kind.DECIMAL, scale);
    }

    /**
     * Reads an {@code encodings:} value.
     *
     * @throws IllegalArgumentException naming the accepted names, or what is wrong with a Decimal
     */
    public static ValueEncoding parse(String text) {
        String t = text == null ? "" : text.trim();
        Matcher m = DECIMAL_WITH_SCALE.matcher(t);
        if (m.matches()) {
            return decimal(Integer.parseInt(m.group(1)));
        }
        if (t.startsWith(Kind.DECIMAL.debeziumName)) {
            throw new IllegalArgumentException("\"" + text + "\": a Decimal needs its scale, as "
                    + Kind.DECIMAL.debeziumName + "(scale=2)");
        }
        Optional<Kind> kind = Kind.byName(t);
        if (kind.isEmpty()) {
            throw new IllegalArgumentException("unknown encoding \"" + text + "\" (known: " + knownNames() + ")");
        }
        return of(kind.get());
    }

    /** The names {@link #parse} accepts, as an error message lists them. */
    public static String knownNames() {
        List<String> names = new ArrayList<>();
        for (Kind k : Kind.values()) {
            names.add(k == Kind.DECIMAL ? k.debeziumName + "(scale=N)" : k.debeziumName);
        }
        return String.join(", ", names);
    }

    /** As config writes it. */
    public String configText() {
        return kind == Kind.DECIMAL ? kind.debeziumName + "(scale=" + scale + ")" : kind.debeziumName;
    }

    /** A value of the Java class this encoding decodes to (what {@link ColumnType#coerce} is then given). */
    public Object sample() {
        return switch (kind) {
            case DATE, CONNECT_DATE -> LocalDate.of(2000, 1, 1);
            case TIME, MICRO_TIME, NANO_TIME, CONNECT_TIME -> LocalTime.NOON;
            case TIMESTAMP, MICRO_TIMESTAMP, NANO_TIMESTAMP, CONNECT_TIMESTAMP -> LocalDateTime.of(2000, 1, 1, 12, 0);
            case ZONED_TIMESTAMP -> Instant.parse("2000-01-01T12:00:00Z");
            case ZONED_TIME -> "12:00:00Z";
            case JSON -> "{}";
            case UUID -> java.util.UUID.fromString("00000000-0000-0000-0000-000000000000");
            case VARIABLE_SCALE_DECIMAL, DECIMAL -> BigDecimal.ONE;
            case BYTES -> new byte[0];
        };
    }

    /** Whether a column of {@code type} takes what this encoding gives. */
    public boolean landsIn(ColumnType type) {
        try {
            type.coerce(sample());
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The reason a column of {@code type} cannot take this encoding's values; empty when it can. */
    public Optional<String> refusalFor(ColumnType type) {
        if (landsIn(type)) {
            return Optional.empty();
        }
        List<String> takers = new ArrayList<>();
        for (ColumnType t : ColumnType.values()) {
            if (landsIn(t)) {
                takers.add(t.sqlName().replace(" without time zone", "").replace("timestamp with time zone", "timestamptz"));
            }
        }
        return Optional.of(configText() + " gives " + kind.gives + ", which a " + type.sqlName().toLowerCase(Locale.ROOT)
                + " column does not take (it lands in " + String.join(", ", takers) + ")");
    }
}
