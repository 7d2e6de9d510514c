package io.dimstream.db.entity;

import com.fasterxml.jackson.core.io.NumberInput;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The column types an entity may declare, with the two conversions the writer needs:
 * a JSON value to a typed Java value ({@link #coerce}), and a typed value to its canonical
 * text (DESIGN section 3), which is both the input of the record hash and the literal COPY sends.
 *
 * <p>{@link #coerce} refuses every value PostgreSQL would refuse later, so that one bad value
 * becomes a rejection naming its column instead of a batch the database refuses:
 * <ul>
 *   <li>text: a NUL character (PostgreSQL's text cannot hold one) or an unpaired UTF-16
 *       surrogate (UTF-8 cannot encode one; it would silently become {@code ?});</li>
 *   <li>timestamps and dates outside {@link #MIN_INSTANT} .. {@link #MAX_INSTANT}: the canonical
 *       text prints the year with four digits, so year 0 and earlier ({@code 0000-}, {@code -0001-})
 *       and years after 9999 ({@code +10000-}) are texts PostgreSQL does not read back;</li>
 *   <li>numeric beyond PostgreSQL's {@value #NUMERIC_MAX_INTEGER_DIGITS} digits before the point
 *       or {@value #NUMERIC_MAX_SCALE} after it, judged from {@code precision()} and {@code scale()}
 *       before any conversion, so {@code 1e900000000} costs no more than {@code 1e9};</li>
 *   <li>integers out of their type's range, judged the same way before any exact conversion;
 *       double precision that is not finite;</li>
 *   <li>timestamp (without time zone) outside {@link #MIN_LOCAL_TIMESTAMP} .. {@link #MAX_LOCAL_TIMESTAMP},
 *       for the reason given for timestamptz; a string with an offset (PostgreSQL would drop the
 *       offset silently: the column takes a local date-time);</li>
 *   <li>time: anything but 00:00:00 .. 23:59:59.999999 ({@code 24:00:00}, which PostgreSQL takes,
 *       is refused: no Java {@code LocalTime} holds it);</li>
 *   <li>jsonb: text that is not one JSON value, a NUL (U+0000, escaped or not) or an unpaired surrogate in
 *       a string or a key (jsonb refuses both), a number beyond numeric's limits (jsonb's numbers
 *       are numerics), a nesting deeper than {@value io.dimstream.db.json.InputJson#MAX_NESTING_DEPTH}
 *       levels ({@link JsonbText});</li>
 *   <li>bytea: a string that is neither base64 nor {@code \x} and hex digit pairs.</li>
 * </ul>
 *
 * <p>Typed values cross types where the meaning is unambiguous ({@link #coerce}): a
 * {@code LocalDateTime} into timestamptz is read as UTC (Debezium encodes a timestamp without time
 * zone as if it were UTC), an {@code Instant} into timestamp gives its UTC date-time; a
 * {@code BigDecimal} into an integer type when whole; and every typed value ({@code LocalDate},
 * {@code LocalDateTime}, {@code LocalTime}, {@code Instant}, {@code UUID}, {@code BigDecimal},
 * {@code byte[]}) into text as the canonical text of its own type ("text for anything else").
 * JSON's own scalars stay refused by text: an integer, a double or a boolean in a text column is
 * more likely a mistake of the feed than a text.
 */
public enum ColumnType {
    TEXT("text"),
    SMALLINT("smallint"),
    INTEGER("integer"),
    BIGINT("bigint"),
    NUMERIC("numeric"),
    DOUBLE("double precision"),
    BOOLEAN("boolean"),
    DATE("date"),
    TIMESTAMPTZ("timestamp with time zone"),
    UUID_TYPE("uuid"),
    /** timestamp without time zone: a {@code LocalDateTime}, microseconds. */
    TIMESTAMP("timestamp without time zone"),
    /** time without time zone: a {@code LocalTime}, microseconds. */
    TIME("time without time zone"),
    /** jsonb: the value is its canonical text, a {@code String} ({@link JsonbText}). */
    JSONB("jsonb"),
    /** bytea: a {@code byte[]}. */
    BYTEA("bytea");

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
    /**
     * A numeric string longer than this cannot be within PostgreSQL's limits (all digits, a sign,
     * a point and an exponent): refused before it is parsed, so parsing costs bounded work.
     */
    private static final int NUMERIC_MAX_TEXT = NUMERIC_MAX_INTEGER_DIGITS + NUMERIC_MAX_SCALE + 32;
    /** Numeric text longer than this is parsed by Jackson's fast parser ({@link #numeric}). */
    private static final int LONG_NUMERIC_TEXT = 1000;
    /** An integer string longer than this is out of every integer type's range (leading zeros aside). */
    private static final int INTEGER_MAX_TEXT = 100;

    private static final Map<String, ColumnType> BY_NAME = Map.ofEntries(
            Map.entry("text", TEXT), Map.entry("varchar", TEXT), Map.entry("character varying", TEXT),
            Map.entry("smallint", SMALLINT), Map.entry("int2", SMALLINT),
            Map.entry("integer", INTEGER), Map.entry("int", INTEGER), Map.entry("int4", INTEGER),
            Map.entry("bigint", BIGINT), Map.entry("int8", BIGINT),
            Map.entry("numeric", NUMERIC), Map.entry("decimal", NUMERIC),
            Map.entry("double precision", DOUBLE), Map.entry("double", DOUBLE), Map.entry("float8", DOUBLE),
            Map.entry("boolean", BOOLEAN), Map.entry("bool", BOOLEAN),
            Map.entry("date", DATE),
            Map.entry("timestamptz", TIMESTAMPTZ), Map.entry("timestamp with time zone", TIMESTAMPTZ),
            Map.entry("uuid", UUID_TYPE),
            Map.entry("timestamp", TIMESTAMP), Map.entry("timestamp without time zone", TIMESTAMP),
            Map.entry("time", TIME), Map.entry("time without time zone", TIME),
            Map.entry("jsonb", JSONB),
            Map.entry("bytea", BYTEA));

    private final String sqlName;

    ColumnType(String sqlName) {
        this.sqlName = sqlName;
    }

    /** The type as PostgreSQL's {@code format_type} prints it (used to validate existing tables). */
    public String sqlName() {
        return sqlName;
    }

    /** Parses a config type name; empty when the name is not supported. */
    public static java.util.Optional<ColumnType> fromConfig(String name) {
        if (name == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.ofNullable(BY_NAME.get(name.trim().toLowerCase(Locale.ROOT)));
    }

    /**
     * Parses a config type name with a modifier: {@code varchar(n)}, {@code character varying(n)},
     * {@code numeric(p)}, {@code numeric(p,s)}, {@code decimal(p,s)} (any case). Empty when the
     * name has no modifier syntax.
     *
     * @throws IllegalArgumentException when it has, but a number is out of PostgreSQL's range
     */
    public static java.util.Optional<TypeModifier> modifierFromConfig(String name) {
        if (name == null) {
            return java.util.Optional.empty();
        }
        String n = name.trim().toLowerCase(Locale.ROOT);
        java.util.regex.Matcher m = VARCHAR_N.matcher(n);
        if (m.matches()) {
            return java.util.Optional.of(new TypeModifier.Length(modifierNumber(m.group(1))));
        }
        m = NUMERIC_P_S.matcher(n);
        if (m.matches()) {
            return java.util.Optional.of(new TypeModifier.Precision(modifierNumber(m.group(1)),
                    m.group(2) == null ? 0 : modifierNumber(m.group(2))));
        }
        return java.util.Optional.empty();
    }

    private static final java.util.regex.Pattern VARCHAR_N =
            java.util.regex.Pattern.compile("(?:varchar|character varying)\\s*\\(\\s*(-?\\d+)\\s*\\)");
    private static final java.util.regex.Pattern NUMERIC_P_S =
            java.util.regex.Pattern.compile("(?:numeric|decimal)\\s*\\(\\s*(-?\\d+)\\s*(?:,\\s*(-?\\d+)\\s*)?\\)");

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
        Object v = switch (this) {
            case TEXT -> rs.getString(index);
            case SMALLINT, INTEGER, BIGINT -> rs.getLong(index);
            case NUMERIC -> rs.getBigDecimal(index);
            case DOUBLE -> rs.getDouble(index);
            case BOOLEAN -> rs.getBoolean(index);
            case DATE -> rs.getObject(index, LocalDate.class);
            case TIMESTAMPTZ -> {
                OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
                yield t == null ? null : t.toInstant();
            }
            case UUID_TYPE -> rs.getObject(index, UUID.class);
            case TIMESTAMP -> rs.getObject(index, LocalDateTime.class);
            case TIME -> rs.getObject(index, LocalTime.class);
            case JSONB -> {
                String json = rs.getString(index);
                yield json == null ? null : coerce(json);
            }
            case BYTEA -> rs.getBytes(index);
        };
        return rs.wasNull() ? null : v;
    }

    /**
     * Converts a value decoded from JSON (String, Number, Boolean; for jsonb also Map, List and
     * Jackson's JsonNode) or already typed, into this type's Java value: String, Long, BigDecimal,
     * Double, Boolean, LocalDate, Instant (micros), UUID, LocalDateTime (micros), LocalTime (micros),
     * the canonical JSON text (a String) for jsonb, byte[] for bytea. See the class comment for the
     * typed values one type takes from another.
     *
     * <p>Strings as the native JSON format writes each type: timestamp {@code 2025-08-22T17:00:00.5}
     * (or a space for the {@code T}); time {@code 17:00:00.5}; jsonb a JSON text ({@code {"a": 1}},
     * {@code "\"a string\""}); bytea base64, as Kafka Connect's JsonConverter writes bytes, or
     * {@code \x} and hex digits, as PostgreSQL prints them.
     *
     * @throws IllegalArgumentException with a message fit for a rejection reason
     */
    public Object coerce(Object v) {
        if (v == null) {
            return null;
        }
        switch (this) {
            case TEXT:
                if (v instanceof String s) {
                    checkText(s);
                    return s;
                }
                ColumnType own = typeOfTyped(v);
                if (own != null) {
                    return own.canonical(own.coerce(v)); // text for anything else: its own type's canonical text
                }
                throw wrong(v);
            case SMALLINT:
            case INTEGER:
            case BIGINT:
                return integral(v);
            case NUMERIC:
                return numeric(v);
            case DOUBLE:
                double d;
                if (v instanceof Number n) {
                    d = n.doubleValue();
                } else if (v instanceof String s) {
                    try {
                        d = Double.parseDouble(s.trim());
                    } catch (NumberFormatException e) {
                        throw wrong(v);
                    }
                } else {
                    throw wrong(v);
                }
                if (Double.isNaN(d) || Double.isInfinite(d)) {
                    throw new IllegalArgumentException("expected a finite double precision, got " + describe(v));
                }
                return d;
            case BOOLEAN:
                if (v instanceof Boolean b) {
                    return b;
                }
                if ("true".equals(v) || "false".equals(v)) {
                    return Boolean.valueOf((String) v);
                }
                throw wrong(v);
            case DATE:
                LocalDate date;
                if (v instanceof LocalDate ld) {
                    date = ld;
                } else if (v instanceof String s) {
                    try {
                        date = LocalDate.parse(s);
                    } catch (DateTimeException e) {
                        throw wrong(v);
                    }
                } else {
                    throw wrong(v);
                }
                if (date.isBefore(MIN_DATE) || date.isAfter(MAX_DATE)) {
                    throw new IllegalArgumentException("date " + date + " is outside the supported range " + MIN_DATE + " to " + MAX_DATE);
                }
                return date;
            case TIMESTAMPTZ:
                Instant instant;
                if (v instanceof Instant i) {
                    instant = i.truncatedTo(ChronoUnit.MICROS);
                } else if (v instanceof LocalDateTime l) {
                    instant = l.truncatedTo(ChronoUnit.MICROS).toInstant(ZoneOffset.UTC); // as Debezium encodes it: as if UTC
                } else if (v instanceof String s) {
                    instant = parseInstant(s).orElseThrow(() -> wrong(v));
                } else {
                    throw wrong(v);
                }
                if (!inRange(instant)) {
                    throw new IllegalArgumentException("timestamp " + instant + " is outside the supported range " + INSTANT_RANGE);
                }
                return instant;
            case UUID_TYPE:
                if (v instanceof UUID u) {
                    return u;
                }
                if (v instanceof String s) {
                    try {
                        return UUID.fromString(s);
                    } catch (IllegalArgumentException e) {
                        throw wrong(v);
                    }
                }
                throw wrong(v);
            case TIMESTAMP:
                return localTimestamp(v);
            case TIME:
                return time(v);
            case JSONB:
                return JsonbText.canonical(v);
            case BYTEA:
                return bytea(v);
            default:
                throw new IllegalStateException(name());
        }
    }

    /** The column type whose Java value {@code v} is, for the typed values text takes; null for the rest. */
    private static ColumnType typeOfTyped(Object v) {
        if (v instanceof LocalDate) {
            return DATE;
        }
        if (v instanceof LocalDateTime) {
            return TIMESTAMP;
        }
        if (v instanceof LocalTime) {
            return TIME;
        }
        if (v instanceof Instant) {
            return TIMESTAMPTZ;
        }
        if (v instanceof UUID) {
            return UUID_TYPE;
        }
        if (v instanceof BigDecimal) {
            return NUMERIC;
        }
        if (v instanceof byte[] || v instanceof ByteBuffer) {
            return BYTEA;
        }
        return null;
    }

    /**
     * timestamp without time zone. An {@code Instant} gives its date-time in UTC (the reverse of a
     * {@code LocalDateTime} into timestamptz); a string must have no offset.
     */
    private LocalDateTime localTimestamp(Object v) {
        LocalDateTime t;
        if (v instanceof LocalDateTime l) {
            t = l.truncatedTo(ChronoUnit.MICROS);
        } else if (v instanceof Instant i) {
            if (!inRange(i.truncatedTo(ChronoUnit.MICROS))) {
                throw new IllegalArgumentException("timestamp " + i + " is outside the supported range " + INSTANT_RANGE);
            }
            t = LocalDateTime.ofInstant(i.truncatedTo(ChronoUnit.MICROS), ZoneOffset.UTC);
        } else if (v instanceof String s) {
            String x = s.trim();
            if (x.length() > 10 && x.charAt(10) == ' ') {
                x = x.substring(0, 10) + 'T' + x.substring(11); // PostgreSQL's own spelling
            }
            try {
                t = LocalDateTime.parse(x).truncatedTo(ChronoUnit.MICROS);
            } catch (DateTimeException e) {
                if (parseInstant(x).isPresent()) {
                    throw new IllegalArgumentException("expected " + sqlName + ", got " + describe(v) + " with an offset: a timestamp "
                            + "without time zone takes a local date-time (declare the column timestamptz for instants)");
                }
                throw wrong(v);
            }
        } else {
            throw wrong(v);
        }
        if (t.isBefore(MIN_LOCAL_TIMESTAMP) || t.isAfter(MAX_LOCAL_TIMESTAMP)) {
            throw new IllegalArgumentException("timestamp " + t + " is outside the supported range "
                    + CANONICAL_LOCAL_TIMESTAMP.format(MIN_LOCAL_TIMESTAMP) + " to " + CANONICAL_LOCAL_TIMESTAMP.format(MAX_LOCAL_TIMESTAMP));
        }
        return t;
    }

    private LocalTime time(Object v) {
        if (v instanceof LocalTime t) {
            return t.truncatedTo(ChronoUnit.MICROS);
        }
        if (v instanceof String s) {
            try {
                return LocalTime.parse(s.trim()).truncatedTo(ChronoUnit.MICROS);
            } catch (DateTimeException e) {
                throw wrong(v);
            }
        }
        throw wrong(v);
    }

    /** The remaining bytes of a buffer (an Avro {@code bytes} value), copied; the buffer's position is left as it was. */
    public static byte[] bytesOf(ByteBuffer buffer) {
        ByteBuffer view = buffer.duplicate();
        byte[] b = new byte[view.remaining()];
        view.get(b);
        return b;
    }

    private byte[] bytea(Object v) {
        if (v instanceof byte[] b) {
            return b;
        }
        if (v instanceof ByteBuffer buffer) {
            return bytesOf(buffer);
        }
        if (v instanceof String s) {
            if (s.startsWith("\\x") || s.startsWith("\\X")) {
                try {
                    return HexFormat.of().parseHex(s, 2, s.length());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("expected bytea, got " + describe(v) + ": not \\x and pairs of hex digits");
                }
            }
            try {
                return Base64.getDecoder().decode(s);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("expected bytea as base64 (or \\x and hex digits), got " + describe(v) + ": "
                        + e.getMessage());
            }
        }
        throw wrong(v);
    }

    private Object integral(Object v) {
        BigInteger big;
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            big = BigInteger.valueOf(((Number) v).longValue());
        } else if (v instanceof BigInteger b) {
            if (b.bitLength() > 63) {
                throw outOfRange(b.toString());
            }
            big = b;
        } else if (v instanceof BigDecimal d) {
            big = integralPart(d);
        } else if (v instanceof String s) {
            String t = s.trim();
            if (t.length() > INTEGER_MAX_TEXT) {
                throw outOfRange(t);
            }
            try {
                big = new BigInteger(t);
            } catch (NumberFormatException e) {
                throw wrong(v);
            }
        } else {
            throw wrong(v);
        }
        long min = this == SMALLINT ? Short.MIN_VALUE : this == INTEGER ? Integer.MIN_VALUE : Long.MIN_VALUE;
        long max = this == SMALLINT ? Short.MAX_VALUE : this == INTEGER ? Integer.MAX_VALUE : Long.MAX_VALUE;
        if (big.bitLength() > 63 || big.longValue() < min || big.longValue() > max) {
            throw outOfRange(big.toString());
        }
        return big.longValue();
    }

    /**
     * The value of a decimal that must be a whole number. Its size is judged from precision and
     * scale first: {@code toBigIntegerExact} of {@code 1e900000000} would build a number of 900
     * million digits before any range check could refuse it.
     */
    private BigInteger integralPart(BigDecimal d) {
        if (d.signum() == 0) {
            return BigInteger.ZERO;
        }
        long integerDigits = (long) d.precision() - d.scale();
        if (integerDigits > 19) {
            throw outOfRange(d.toString());
        }
        if (integerDigits <= 0) {
            throw wrong(d); // non-zero and below 1 in magnitude: a fraction
        }
        // at most 19 digits before the point: every step below works on numbers that small, or
        // (a positive scale) divides by a power of ten smaller than the number itself
        BigDecimal whole = d.setScale(0, java.math.RoundingMode.DOWN);
        if (whole.compareTo(d) != 0) {
            throw wrong(d);
        }
        return whole.toBigIntegerExact();
    }

    private IllegalArgumentException outOfRange(String value) {
        return new IllegalArgumentException("value " + abbreviate(value) + " is out of range for " + sqlName);
    }

    /**
     * A numeric value within PostgreSQL's limits, judged from precision and scale before anything
     * else touches it. Digits are counted as the value is written: {@code 1.000} has three after
     * the point. A zero is plain zero whatever its exponent ({@code 0E+900000000}).
     */
    private Object numeric(Object v) {
        BigDecimal d;
        if (v instanceof BigDecimal b) {
            d = b;
        } else if (v instanceof BigInteger b) {
            d = new BigDecimal(b);
        } else if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            d = BigDecimal.valueOf(((Number) v).longValue());
        } else if (v instanceof Double || v instanceof Float) {
            double x = ((Number) v).doubleValue();
            if (Double.isNaN(x) || Double.isInfinite(x)) {
                throw new IllegalArgumentException("expected a finite numeric, got " + describe(v));
            }
            d = new BigDecimal(v.toString());
        } else if (v instanceof String s) {
            String t = s.trim();
            if (t.length() > NUMERIC_MAX_TEXT) {
                throw new IllegalArgumentException("numeric text of " + t.length() + " characters is longer than any value PostgreSQL's "
                        + "numeric holds (" + NUMERIC_MAX_INTEGER_DIGITS + " digits before the point, " + NUMERIC_MAX_SCALE + " after)");
            }
            try {
                // the JDK parses long digit strings in quadratic time (~1 s for PostgreSQL's longest
                // numeric here), Jackson's FastDoubleParser in about a fifth of it
                d = t.length() > LONG_NUMERIC_TEXT ? NumberInput.parseBigDecimal(t, true) : new BigDecimal(t);
            } catch (NumberFormatException e) {
                throw wrong(v);
            }
        } else {
            throw wrong(v);
        }
        if (d.signum() == 0) {
            return d.scale() < 0 || d.scale() > NUMERIC_MAX_SCALE ? BigDecimal.ZERO : d;
        }
        long integerDigits = (long) d.precision() - d.scale();
        if (integerDigits > NUMERIC_MAX_INTEGER_DIGITS) {
            throw new IllegalArgumentException("numeric " + abbreviate(d.toString()) + " has " + integerDigits
                    + " digits before the decimal point; PostgreSQL's numeric holds at most " + NUMERIC_MAX_INTEGER_DIGITS);
        }
        if (d.scale() > NUMERIC_MAX_SCALE) {
            throw new IllegalArgumentException("numeric " + abbreviate(d.toString()) + " has " + d.scale()
                    + " digits after the decimal point; PostgreSQL's numeric holds at most " + NUMERIC_MAX_SCALE);
        }
        return d;
    }

    /**
     * Refuses text PostgreSQL cannot store as it was given. Hand-written: the JDK has no check
     * for unpaired surrogates short of encoding the string, which would replace them silently.
     */
    static void checkText(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0) {
                throw new IllegalArgumentException("text contains a NUL character (U+0000), which PostgreSQL cannot store");
            }
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                throw new IllegalArgumentException(String.format(Locale.ROOT, "text contains an unpaired UTF-16 surrogate "
                        + "(U+%04X at character %d), which UTF-8 cannot encode", (int) c, i));
            }
        }
    }

    /** Whether an instant is within {@link #MIN_INSTANT} .. {@link #MAX_INSTANT}. */
    public static boolean inRange(Instant t) {
        return !t.isBefore(MIN_INSTANT) && !t.isAfter(MAX_INSTANT);
    }

    /** The canonical text of a value already {@link #coerce coerced} to this type. */
    public String canonical(Object v) {
        return switch (this) {
            case TEXT -> (String) v;
            case SMALLINT, INTEGER, BIGINT -> Long.toString((Long) v);
            case NUMERIC -> plain((BigDecimal) v);
            case DOUBLE -> plain(new BigDecimal(Double.toString((Double) v)));
            case BOOLEAN -> ((Boolean) v) ? "true" : "false";
            case DATE -> v.toString();
            case TIMESTAMPTZ -> CANONICAL_TIMESTAMP.format((Instant) v);
            case UUID_TYPE -> v.toString();
            case TIMESTAMP -> CANONICAL_LOCAL_TIMESTAMP.format((LocalDateTime) v);
            case TIME -> CANONICAL_TIME.format((LocalTime) v);
            case JSONB -> (String) v;
            case BYTEA -> "\\x" + HexFormat.of().formatHex((byte[]) v);
        };
    }

    /**
     * A PostgreSQL expression giving {@code expr}'s value of this type as a text that
     * {@link #coerce} reads back as the same value (the writer reads remembered values this way,
     * {@code UnchangedValues}): PostgreSQL's own text output for most types ({@code true}/{@code false}),
     * the canonical form for dates and timestamptz (whatever the session's DateStyle).
     */
    public String textSql(String expr) {
        return switch (this) {
            case TIMESTAMPTZ -> "to_char(" + expr + " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')";
            case DATE -> "to_char(" + expr + ", 'YYYY-MM-DD')";
            case TIMESTAMP -> "to_char(" + expr + ", 'YYYY-MM-DD\"T\"HH24:MI:SS.US')";
            // time: HH:MI:SS[.fraction]; jsonb: its normal form, which coerce parses and makes canonical;
            // bytea: \x and hex (bytea_output hex, the default since PostgreSQL 9.0)
            default -> "(" + expr + ")::text";
        };
    }

    private static String plain(BigDecimal d) {
        BigDecimal s = d.stripTrailingZeros();
        return s.signum() == 0 ? "0" : s.toPlainString();
    }

    /**
     * ISO-8601 with an offset or 'Z' ({@code OffsetDateTime.parse}), truncated to microseconds
     * (PostgreSQL's precision); the common form is read by {@link IsoInstant} first, to the same result.
     */
    public static java.util.Optional<Instant> parseInstant(String s) {
        try {
            String t = s.trim();
            Instant fast = IsoInstant.parse(t);
            return java.util.Optional.of((fast != null ? fast : OffsetDateTime.parse(t).toInstant()).truncatedTo(ChronoUnit.MICROS));
        } catch (DateTimeException | NullPointerException e) {
            return java.util.Optional.empty();
        }
    }

    private IllegalArgumentException wrong(Object v) {
        return new IllegalArgumentException("expected " + sqlName + ", got " + describe(v));
    }

    /**
     * A value as a reason quotes it: its kind and at most 60 characters of it. Arrays and objects
     * are described by their size only, so a huge one costs nothing to describe.
     */
    static String describe(Object v) {
        if (v instanceof java.util.Collection<?> c) {
            return "array of " + c.size() + " element" + (c.size() == 1 ? "" : "s");
        }
        if (v instanceof Map<?, ?> m) {
            return "object of " + m.size() + " field" + (m.size() == 1 ? "" : "s");
        }
        if (v instanceof byte[] b) {
            return "bytes (" + b.length + ")";
        }
        String kind = v instanceof String ? "string" : v instanceof Number ? "number"
                : v instanceof Boolean ? "boolean" : v.getClass().getSimpleName();
        String text = abbreviate(v instanceof String s ? s : String.valueOf(v));
        return kind + " " + (v instanceof String ? '"' + text + '"' : text);
    }

    static String abbreviate(String text) {
        return text.length() > 60 ? text.substring(0, 57) + "..." : text;
    }
}
