package io.dimstream.db.entity;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The column types an entity may declare, with the two conversions the writer needs:
 * a JSON value to a typed Java value ({@link #coerce}), and a typed value to its canonical
 * text (DESIGN section 3), which is both the input of the record hash and the literal COPY sends.
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
    UUID_TYPE("uuid");

    /** UTC, always six fractional digits, 'Z'. */
    public static final DateTimeFormatter CANONICAL_TIMESTAMP =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

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
            Map.entry("uuid", UUID_TYPE));

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

    public static String supportedNames() {
        return "text, smallint, integer, bigint, numeric, double precision, boolean, date, timestamptz, uuid";
    }

    /**
     * Converts a value decoded from JSON (String, Number, Boolean) or already typed, into this
     * type's Java value: String, Long, BigDecimal, Double, Boolean, LocalDate, Instant (micros), UUID.
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
                    return s;
                }
                throw wrong(v);
            case SMALLINT:
            case INTEGER:
            case BIGINT:
                return integral(v);
            case NUMERIC:
                if (v instanceof BigDecimal d) {
                    return d;
                }
                if (v instanceof Number n) {
                    return n instanceof Double || n instanceof Float ? new BigDecimal(n.toString()) : new BigDecimal(n.toString());
                }
                if (v instanceof String s) {
                    try {
                        return new BigDecimal(s.trim());
                    } catch (NumberFormatException e) {
                        throw wrong(v);
                    }
                }
                throw wrong(v);
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
                if (v instanceof LocalDate ld) {
                    return ld;
                }
                if (v instanceof String s) {
                    try {
                        return LocalDate.parse(s);
                    } catch (DateTimeParseException e) {
                        throw wrong(v);
                    }
                }
                throw wrong(v);
            case TIMESTAMPTZ:
                if (v instanceof Instant i) {
                    return i.truncatedTo(ChronoUnit.MICROS);
                }
                if (v instanceof String s) {
                    return parseInstant(s).orElseThrow(() -> wrong(v));
                }
                throw wrong(v);
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
            default:
                throw new IllegalStateException(name());
        }
    }

    private Object integral(Object v) {
        BigInteger big;
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            big = BigInteger.valueOf(((Number) v).longValue());
        } else if (v instanceof BigInteger b) {
            big = b;
        } else if (v instanceof BigDecimal d) {
            try {
                big = d.toBigIntegerExact();
            } catch (ArithmeticException e) {
                throw wrong(v);
            }
        } else if (v instanceof String s) {
            try {
                big = new BigInteger(s.trim());
            } catch (NumberFormatException e) {
                throw wrong(v);
            }
        } else {
            throw wrong(v);
        }
        long min = this == SMALLINT ? Short.MIN_VALUE : this == INTEGER ? Integer.MIN_VALUE : Long.MIN_VALUE;
        long max = this == SMALLINT ? Short.MAX_VALUE : this == INTEGER ? Integer.MAX_VALUE : Long.MAX_VALUE;
        if (big.bitLength() > 63 || big.longValue() < min || big.longValue() > max) {
            throw new IllegalArgumentException("value " + big + " is out of range for " + sqlName);
        }
        return big.longValue();
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
        };
    }

    private static String plain(BigDecimal d) {
        BigDecimal s = d.stripTrailingZeros();
        return s.signum() == 0 ? "0" : s.toPlainString();
    }

    /** ISO-8601 with an offset or 'Z', truncated to microseconds (PostgreSQL's precision). */
    public static java.util.Optional<Instant> parseInstant(String s) {
        try {
            return java.util.Optional.of(OffsetDateTime.parse(s.trim()).toInstant().truncatedTo(ChronoUnit.MICROS));
        } catch (DateTimeParseException | NullPointerException e) {
            return java.util.Optional.empty();
        }
    }

    private IllegalArgumentException wrong(Object v) {
        return new IllegalArgumentException("expected " + sqlName + ", got " + describe(v));
    }

    private static String describe(Object v) {
        String kind = v instanceof String ? "string" : v instanceof Number ? "number"
                : v instanceof Boolean ? "boolean" : v instanceof Map ? "object"
                : v instanceof java.util.List ? "array" : v.getClass().getSimpleName();
        String text = String.valueOf(v);
        if (text.length() > 60) {
            text = text.substring(0, 57) + "...";
        }
        return kind + " " + (v instanceof String ? '"' + text + '"' : text);
    }
}
