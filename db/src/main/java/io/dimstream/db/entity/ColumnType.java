package io.dimstream.db.entity;

import java.nio.ByteBuffer;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The column types an entity may declare: each constant's PostgreSQL name, the names a config may
 * give it, and the {@link ValueType} of its family, which does the conversions the writer needs:
 * a JSON or typed value to the type's Java value ({@link #coerce}), that value to its canonical
 * text (DESIGN section 3: the input of the record hash and the literal COPY sends,
 * {@link #canonical}), a JDBC column back to the Java value ({@link #read}), and the SQL that
 * prints a stored value as a text {@link #coerce} reads back ({@link #textSql}).
 *
 * <p>{@link #coerce} refuses every value PostgreSQL would refuse later, so that one bad value
 * becomes a rejection naming its column instead of a batch the database refuses; each family's
 * class says what it refuses ({@link TextValues}, {@link IntegerValues}, {@link NumericValues},
 * {@link DoubleValues}, {@link BooleanValues}, {@link DateValues}, {@link TimestampTzValues},
 * {@link UuidValues}, {@link TimestampValues}, {@link TimeValues}, {@link JsonbValues},
 * {@link ByteaValues}). Typed values cross types only where the meaning is unambiguous: a
 * {@code LocalDateTime} into timestamptz is read as UTC and an {@code Instant} into timestamp gives
 * its UTC date-time; a whole {@code BigDecimal} goes into an integer type; every typed value goes
 * into text as the canonical text of its own type.
 */
public enum ColumnType {
    TEXT("text", TextValues::new, "varchar", "character varying"),
    SMALLINT("smallint", n -> new IntegerValues(n, Short.MIN_VALUE, Short.MAX_VALUE), "int2"),
    INTEGER("integer", n -> new IntegerValues(n, Integer.MIN_VALUE, Integer.MAX_VALUE), "int", "int4"),
    BIGINT("bigint", n -> new IntegerValues(n, Long.MIN_VALUE, Long.MAX_VALUE), "int8"),
    NUMERIC("numeric", NumericValues::new, "decimal"),
    DOUBLE("double precision", DoubleValues::new, "double", "float8"),
    BOOLEAN("boolean", BooleanValues::new, "bool"),
    DATE("date", DateValues::new),
    TIMESTAMPTZ("timestamp with time zone", TimestampTzValues::new, "timestamptz"),
    UUID_TYPE("uuid", UuidValues::new),
    /** timestamp without time zone: a {@code LocalDateTime}, microseconds. */
    TIMESTAMP("timestamp without time zone", TimestampValues::new, "timestamp"),
    /** time without time zone: a {@code LocalTime}, microseconds. */
    TIME("time without time zone", TimeValues::new, "time"),
    /** jsonb: the value is its canonical text, a {@code String} ({@link JsonbText}). */
    JSONB("jsonb", JsonbValues::new),
    /** bytea: a {@code byte[]}. */
    BYTEA("bytea", ByteaValues::new);

    /** UTC, always six fractional digits, 'Z'. */
    public static final DateTimeFormatter CANONICAL_TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
    /** A timestamp without time zone: always six fractional digits, no offset. */
    public static final DateTimeFormatter CANONICAL_LOCAL_TIMESTAMP = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS");
    /** A time without time zone: always six fractional digits. */
    public static final DateTimeFormatter CANONICAL_TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSSSSS");

    /** The earliest instant dimstream accepts (event times and timestamptz values): its canonical text has a 4-digit year. */
    public static final Instant MIN_INSTANT = Instant.parse("0001-01-01T00:00:00Z");
    /** The latest instant dimstream accepts, at PostgreSQL's precision (microseconds). */
    public static final Instant MAX_INSTANT = Instant.parse("9999-12-31T23:59:59.999999Z");
    /** The instants dimstream accepts, as reasons print them. */
    public static final String INSTANT_RANGE = "0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";
    /** The earliest and latest dates dimstream accepts: 4-digit years, as for instants. */
    public static final LocalDate MIN_DATE = LocalDate.of(1, 1, 1);
    public static final LocalDate MAX_DATE = LocalDate.of(9999, 12, 31);
    /** The earliest and latest timestamps without time zone dimstream accepts: 4-digit years, as for instants. */
    public static final LocalDateTime MIN_LOCAL_TIMESTAMP = LocalDateTime.of(1, 1, 1, 0, 0);
    public static final LocalDateTime MAX_LOCAL_TIMESTAMP = LocalDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_000);

    /** PostgreSQL's numeric: at most this many digits before the decimal point ... */
    public static final int NUMERIC_MAX_INTEGER_DIGITS = 131_072;
    /** ... and at most this many after it. */
    public static final int NUMERIC_MAX_SCALE = 16_383;

    /** Every config name (the SQL name and the constant's other names) to its type. */
    private static final Map<String, ColumnType> BY_NAME = byName();

    private static final Pattern VARCHAR_N = Pattern.compile("(?:varchar|character varying)\\s*\\(\\s*(-?\\d+)\\s*\\)");
    private static final Pattern NUMERIC_P_S = Pattern.compile("(?:numeric|decimal)\\s*\\(\\s*(-?\\d+)\\s*(?:,\\s*(-?\\d+)\\s*)?\\)");

    private final String sqlName;
    private final List<String> otherNames;
    private final ValueType values;

    ColumnType(String sqlName, Function<String, ValueType> family, String... otherNames) {
        this.sqlName = sqlName;
        this.otherNames = List.of(otherNames);
        this.values = family.apply(sqlName);
    }

    private static Map<String, ColumnType> byName() {
        Map<String, ColumnType> names = new HashMap<>();
        for (ColumnType t : values()) {
            names.put(t.sqlName, t);
            t.otherNames.forEach(n -> names.put(n, t));
        }
        return Map.copyOf(names);
    }

    /** The type as PostgreSQL's {@code format_type} prints it (used to validate existing tables). */
    public String sqlName() {
        return sqlName;
    }

    /** Parses a config type name (any case, spaces around it ignored); empty when the name is not supported. */
    public static Optional<ColumnType> fromConfig(String name) {
        if (name == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(BY_NAME.get(name.trim().toLowerCase(Locale.ROOT)));
    }

    /**
     * Parses a config type name with a modifier: {@code varchar(n)}, {@code character varying(n)},
     * {@code numeric(p)}, {@code numeric(p,s)}, {@code decimal(p,s)} (any case). Empty when the
     * name has no modifier syntax.
     *
     * @throws IllegalArgumentException when it has, but a number is out of PostgreSQL's range
     */
    public static Optional<TypeModifier> modifierFromConfig(String name) {
        if (name == null) {
            return Optional.empty();
        }
        String n = name.trim().toLowerCase(Locale.ROOT);
        Matcher m = VARCHAR_N.matcher(n);
        if (m.matches()) {
            return Optional.of(new TypeModifier.Length(modifierNumber(m.group(1))));
        }
        m = NUMERIC_P_S.matcher(n);
        if (m.matches()) {
            return Optional.of(new TypeModifier.Precision(modifierNumber(m.group(1)), m.group(2) == null ? 0 : modifierNumber(m.group(2))));
        }
        return Optional.empty();
    }

    private static int modifierNumber(String digits) {
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            return digits.startsWith("-") ? Integer.MIN_VALUE : Integer.MAX_VALUE; // refused by the range checks
        }
    }

    public static String supportedNames() {
        return "text, varchar(n), smallint, integer, bigint, numeric, numeric(p,s), double precision, boolean, date, timestamp, "
                + "timestamptz, time, uuid, jsonb, bytea";
    }

    /**
     * Column {@code index} of {@code rs}, a column of this type, as the writer's typed value
     * ({@link #coerce}'s Java types), null for SQL NULL: timestamptz as an {@link Instant}, jsonb
     * read back to its canonical text (PostgreSQL prints it with spaces), bytea as its bytes. The
     * one place a typed column is read over JDBC (history, as-of and diff reads, snapshot slices).
     */
    public Object read(ResultSet rs, int index) throws SQLException {
        Object v = values.read(rs, index);
        return rs.wasNull() ? null : v;
    }

    /**
     * Converts a value decoded from JSON (String, Number, Boolean; for jsonb also Map, List and
     * Jackson's JsonNode) or already typed, into this type's Java value: String, Long, BigDecimal,
     * Double, Boolean, LocalDate, Instant (micros), UUID, LocalDateTime (micros), LocalTime (micros),
     * the canonical JSON text (a String) for jsonb, byte[] for bytea; null stays null. Strings as the
     * native JSON format writes each type: timestamp {@code 2025-08-22T17:00:00.5} (or a space for
     * the {@code T}); time {@code 17:00:00.5}; jsonb a JSON text; bytea base64 or {@code \x} and hex.
     *
     * @throws IllegalArgumentException with a message fit for a rejection reason
     */
    public Object coerce(Object v) {
        return v == null ? null : values.coerce(v);
    }

    /** The canonical text of a value already {@link #coerce coerced} to this type. */
    public String canonical(Object v) {
        return values.canonical(v);
    }

    /**
     * A PostgreSQL expression giving {@code expr}'s value of this type as a text that
     * {@link #coerce} reads back as the same value (the writer reads remembered values this way,
     * {@code UnchangedValues}): PostgreSQL's own text output for most types ({@code true}/{@code false}),
     * the canonical form for dates and timestamps (whatever the session's DateStyle).
     */
    public String textSql(String expr) {
        return values.textSql(expr);
    }

    /** Whether an instant is within {@link #MIN_INSTANT} .. {@link #MAX_INSTANT}. */
    public static boolean inRange(Instant t) {
        return !t.isBefore(MIN_INSTANT) && !t.isAfter(MAX_INSTANT);
    }

    /**
     * ISO-8601 with an offset or 'Z' ({@code OffsetDateTime.parse}), truncated to microseconds
     * (PostgreSQL's precision); the common form is read by {@link IsoInstant} first, to the same result.
     */
    public static Optional<Instant> parseInstant(String s) {
        try {
            String t = s.trim();
            Instant fast = IsoInstant.parse(t);
            return Optional.of((fast != null ? fast : OffsetDateTime.parse(t).toInstant()).truncatedTo(ChronoUnit.MICROS));
        } catch (DateTimeException | NullPointerException e) {
            return Optional.empty();
        }
    }

    /** The remaining bytes of a buffer (an Avro {@code bytes} value), copied; the buffer's position is left as it was. */
    public static byte[] bytesOf(ByteBuffer buffer) {
        ByteBuffer view = buffer.duplicate();
        byte[] b = new byte[view.remaining()];
        view.get(b);
        return b;
    }
}
