package io.dimstream.db.entity;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every branch of every column type, written down as data: what {@link ColumnType#coerce} makes of
 * each kind of input (the Java value, and its {@link ColumnType#canonical canonical text}, the
 * record hash's input and the literal COPY sends), or the exact reason it refuses it; the SQL each
 * type's {@link ColumnType#textSql} builds; the config names and modifiers. A row reads
 * {@code TYPE <- input => JavaClass value | canonical} or {@code TYPE <- input => refused: reason}.
 * The rows were taken from the code before the types were split into one class per family, so
 * that the split is shown to change none of them.
 */
class ColumnTypeContractTest {

    private record Case(ColumnType type, Object input) {
    }

    private static Case c(ColumnType type, Object input) {
        return new Case(type, input);
    }

    private static String shown(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof String s) {
            StringBuilder b = new StringBuilder("\"");
            String t = s.length() > 70 ? s.substring(0, 30) + "...(" + s.length() + " chars)" : s;
            for (char ch : t.toCharArray()) {
                b.append(ch < 0x20 || Character.isSurrogate(ch) ? String.format(Locale.ROOT, "\\u%04X", (int) ch) : String.valueOf(ch));
            }
            return b.append('"').toString();
        }
        if (v instanceof byte[] b) {
            return "byte[] " + Arrays.toString(b);
        }
        if (v instanceof ByteBuffer b) {
            return "ByteBuffer of " + b.remaining();
        }
        if (v instanceof List<?> l) {
            return "List " + l;
        }
        if (v instanceof Map<?, ?> m) {
            return "Map " + new TreeMap<>(m);
        }
        String text = String.valueOf(v);
        return v.getClass().getSimpleName() + " " + (text.length() > 70 ? text.substring(0, 30) + "...(" + text.length() + " chars)" : text);
    }

    private static String outcome(Case k) {
        String row = k.type() + " <- " + shown(k.input()) + " => ";
        try {
            Object typed = k.type().coerce(k.input());
            return row + (typed == null ? "null" : shown(typed) + " | " + shown(k.type().canonical(typed)));
        } catch (IllegalArgumentException e) {
            return row + "refused: " + e.getMessage();
        }
    }

    private static List<String> outcomes(Case... cases) {
        List<String> out = new ArrayList<>();
        for (Case k : cases) {
            out.add(outcome(k));
        }
        return out;
    }

    @Test
    void nullIsNullInEveryType() {
        List<String> out = new ArrayList<>();
        for (ColumnType t : ColumnType.values()) {
            out.add(outcome(c(t, null)));
        }
        assertThat(out).isEqualTo(List.of(
                "TEXT <- null => null",
                "SMALLINT <- null => null",
                "INTEGER <- null => null",
                "BIGINT <- null => null",
                "NUMERIC <- null => null",
                "DOUBLE <- null => null",
                "BOOLEAN <- null => null",
                "DATE <- null => null",
                "TIMESTAMPTZ <- null => null",
                "UUID_TYPE <- null => null",
                "TIMESTAMP <- null => null",
                "TIME <- null => null",
                "JSONB <- null => null",
                "BYTEA <- null => null"));
    }

    @Test
    void text() {
        assertThat(outcomes(
                c(ColumnType.TEXT, "plain"),
                c(ColumnType.TEXT, ""),
                c(ColumnType.TEXT, "  spaces kept  "),
                c(ColumnType.TEXT, "smile \ud83d\ude00"),
                c(ColumnType.TEXT, "a\u0000b"),
                c(ColumnType.TEXT, "x\ud800"),
                c(ColumnType.TEXT, "\udc00x"),
                c(ColumnType.TEXT, LocalDate.of(2018, 6, 20)),
                c(ColumnType.TEXT, LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_999)),
                c(ColumnType.TEXT, LocalTime.of(15, 13, 0, 1_999)),
                c(ColumnType.TEXT, Instant.parse("2018-06-20T15:13:16.123456789Z")),
                c(ColumnType.TEXT, UUID.fromString("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11")),
                c(ColumnType.TEXT, new BigDecimal("1.50")),
                c(ColumnType.TEXT, new BigDecimal("1E+3")),
                c(ColumnType.TEXT, new byte[] {1, 2, (byte) 0xff}),
                c(ColumnType.TEXT, ByteBuffer.wrap(new byte[] {9, 10})),
                c(ColumnType.TEXT, Instant.parse("+10000-01-01T00:00:00Z")),
                c(ColumnType.TEXT, LocalDateTime.of(0, 1, 1, 0, 0)),
                c(ColumnType.TEXT, 5L),
                c(ColumnType.TEXT, 5),
                c(ColumnType.TEXT, BigInteger.TEN),
                c(ColumnType.TEXT, 1.5),
                c(ColumnType.TEXT, 2.5f),
                c(ColumnType.TEXT, true),
                c(ColumnType.TEXT, List.of("a")),
                c(ColumnType.TEXT, List.of("a", "b")),
                c(ColumnType.TEXT, List.of()),
                c(ColumnType.TEXT, Map.of("a", 1)),
                c(ColumnType.TEXT, Map.of("a", 1, "b", 2)),
                c(ColumnType.TEXT, 'c')))
                .isEqualTo(List.of(
                        "TEXT <- \"plain\" => \"plain\" | \"plain\"",
                        "TEXT <- \"\" => \"\" | \"\"",
                        "TEXT <- \"  spaces kept  \" => \"  spaces kept  \" | \"  spaces kept  \"",
                        "TEXT <- \"smile \\uD83D\\uDE00\" => \"smile \\uD83D\\uDE00\" | \"smile \\uD83D\\uDE00\"",
                        "TEXT <- \"a\\u0000b\" => "
                                + "refused: text contains a NUL character (U+0000), which PostgreSQL cannot store",
                        "TEXT <- \"x\\uD800\" => "
                                + "refused: text contains an unpaired UTF-16 surrogate (U+D800 at character 1), which UTF-8 cannot encode",
                        "TEXT <- \"\\uDC00x\" => "
                                + "refused: text contains an unpaired UTF-16 surrogate (U+DC00 at character 0), which UTF-8 cannot encode",
                        "TEXT <- LocalDate 2018-06-20 => \"2018-06-20\" | \"2018-06-20\"",
                        "TEXT <- LocalDateTime 2018-06-20T15:13:16.945104999 => "
                                + "\"2018-06-20T15:13:16.945104\" | \"2018-06-20T15:13:16.945104\"",
                        "TEXT <- LocalTime 15:13:00.000001999 => \"15:13:00.000001\" | \"15:13:00.000001\"",
                        "TEXT <- Instant 2018-06-20T15:13:16.123456789Z => "
                                + "\"2018-06-20T15:13:16.123456Z\" | \"2018-06-20T15:13:16.123456Z\"",
                        "TEXT <- UUID a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 => "
                                + "\"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\" | \"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\"",
                        "TEXT <- BigDecimal 1.50 => \"1.5\" | \"1.5\"",
                        "TEXT <- BigDecimal 1E+3 => \"1000\" | \"1000\"",
                        "TEXT <- byte[] [1, 2, -1] => \"\\x0102ff\" | \"\\x0102ff\"",
                        "TEXT <- ByteBuffer of 2 => \"\\x090a\" | \"\\x090a\"",
                        "TEXT <- Instant +10000-01-01T00:00:00Z => "
                                + "refused: timestamp +10000-01-01T00:00:00Z is outside the supported range 0001-01-01T00:00:00Z to "
                                + "9999-12-31T23:59:59.999999Z",
                        "TEXT <- LocalDateTime 0000-01-01T00:00 => "
                                + "refused: timestamp 0000-01-01T00:00 is outside the supported range 0001-01-01T00:00:00.000000 to "
                                + "9999-12-31T23:59:59.999999",
                        "TEXT <- Long 5 => refused: expected text, got number 5",
                        "TEXT <- Integer 5 => refused: expected text, got number 5",
                        "TEXT <- BigInteger 10 => refused: expected text, got number 10",
                        "TEXT <- Double 1.5 => refused: expected text, got number 1.5",
                        "TEXT <- Float 2.5 => refused: expected text, got number 2.5",
                        "TEXT <- Boolean true => refused: expected text, got boolean true",
                        "TEXT <- List [a] => refused: expected text, got array of 1 element",
                        "TEXT <- List [a, b] => refused: expected text, got array of 2 elements",
                        "TEXT <- List [] => refused: expected text, got array of 0 elements",
                        "TEXT <- Map {a=1} => refused: expected text, got object of 1 field",
                        "TEXT <- Map {a=1, b=2} => refused: expected text, got object of 2 fields",
                        "TEXT <- Character c => refused: expected text, got Character c"));
    }

    @Test
    void integers() {
        assertThat(outcomes(
                c(ColumnType.BIGINT, 42L),
                c(ColumnType.BIGINT, 42),
                c(ColumnType.BIGINT, (short) 42),
                c(ColumnType.BIGINT, (byte) 42),
                c(ColumnType.BIGINT, Long.MIN_VALUE),
                c(ColumnType.BIGINT, BigInteger.valueOf(Long.MAX_VALUE)),
                c(ColumnType.BIGINT, BigInteger.valueOf(Long.MAX_VALUE).add(BigInteger.ONE)),
                c(ColumnType.BIGINT, BigInteger.valueOf(Long.MIN_VALUE)),
                c(ColumnType.BIGINT, BigInteger.valueOf(Long.MIN_VALUE).subtract(BigInteger.ONE)),
                c(ColumnType.BIGINT, new BigDecimal("0E+5")),
                c(ColumnType.BIGINT, new BigDecimal("-0.000")),
                c(ColumnType.BIGINT, new BigDecimal("0.5")),
                c(ColumnType.BIGINT, new BigDecimal("-7.00")),
                c(ColumnType.BIGINT, new BigDecimal("12E+2")),
                c(ColumnType.BIGINT, new BigDecimal("9999999999999999999")),
                c(ColumnType.BIGINT, new BigDecimal("99999999999999999999")),
                c(ColumnType.BIGINT, " 42 "),
                c(ColumnType.BIGINT, "+42"),
                c(ColumnType.BIGINT, "-0"),
                c(ColumnType.BIGINT, "007"),
                c(ColumnType.BIGINT, "4.0"),
                c(ColumnType.BIGINT, "1e3"),
                c(ColumnType.BIGINT, ""),
                c(ColumnType.BIGINT, "9223372036854775808"),
                c(ColumnType.BIGINT, "0".repeat(99) + "1"),
                c(ColumnType.BIGINT, "0".repeat(100) + "1"),
                c(ColumnType.BIGINT, 4.0),
                c(ColumnType.BIGINT, 4.0f),
                c(ColumnType.BIGINT, true),
                c(ColumnType.BIGINT, Instant.EPOCH),
                c(ColumnType.INTEGER, 2_147_483_647L),
                c(ColumnType.INTEGER, 2_147_483_648L),
                c(ColumnType.INTEGER, -2_147_483_648L),
                c(ColumnType.INTEGER, -2_147_483_649L),
                c(ColumnType.INTEGER, "2147483648"),
                c(ColumnType.INTEGER, new BigDecimal("2147483648")),
                c(ColumnType.INTEGER, "x"),
                c(ColumnType.SMALLINT, 32_767),
                c(ColumnType.SMALLINT, 32_768),
                c(ColumnType.SMALLINT, -32_768L),
                c(ColumnType.SMALLINT, -32_769L),
                c(ColumnType.SMALLINT, "-32769"),
                c(ColumnType.SMALLINT, 1.5)))
                .isEqualTo(List.of(
                        "BIGINT <- Long 42 => Long 42 | \"42\"",
                        "BIGINT <- Integer 42 => Long 42 | \"42\"",
                        "BIGINT <- Short 42 => Long 42 | \"42\"",
                        "BIGINT <- Byte 42 => Long 42 | \"42\"",
                        "BIGINT <- Long -9223372036854775808 => Long -9223372036854775808 | \"-9223372036854775808\"",
                        "BIGINT <- BigInteger 9223372036854775807 => Long 9223372036854775807 | \"9223372036854775807\"",
                        "BIGINT <- BigInteger 9223372036854775808 => "
                                + "refused: value 9223372036854775808 is out of range for bigint",
                        "BIGINT <- BigInteger -9223372036854775808 => Long -9223372036854775808 | \"-9223372036854775808\"",
                        "BIGINT <- BigInteger -9223372036854775809 => "
                                + "refused: value -9223372036854775809 is out of range for bigint",
                        "BIGINT <- BigDecimal 0E+5 => Long 0 | \"0\"",
                        "BIGINT <- BigDecimal 0.000 => Long 0 | \"0\"",
                        "BIGINT <- BigDecimal 0.5 => refused: expected bigint, got number 0.5",
                        "BIGINT <- BigDecimal -7.00 => Long -7 | \"-7\"",
                        "BIGINT <- BigDecimal 1.2E+3 => Long 1200 | \"1200\"",
                        "BIGINT <- BigDecimal 9999999999999999999 => "
                                + "refused: value 9999999999999999999 is out of range for bigint",
                        "BIGINT <- BigDecimal 99999999999999999999 => "
                                + "refused: value 99999999999999999999 is out of range for bigint",
                        "BIGINT <- \" 42 \" => Long 42 | \"42\"",
                        "BIGINT <- \"+42\" => Long 42 | \"42\"",
                        "BIGINT <- \"-0\" => Long 0 | \"0\"",
                        "BIGINT <- \"007\" => Long 7 | \"7\"",
                        "BIGINT <- \"4.0\" => refused: expected bigint, got string \"4.0\"",
                        "BIGINT <- \"1e3\" => refused: expected bigint, got string \"1e3\"",
                        "BIGINT <- \"\" => refused: expected bigint, got string \"\"",
                        "BIGINT <- \"9223372036854775808\" => refused: value 9223372036854775808 is out of range for bigint",
                        "BIGINT <- \"000000000000000000000000000000...(100 chars)\" => Long 1 | \"1\"",
                        "BIGINT <- \"000000000000000000000000000000...(101 chars)\" => "
                                + "refused: value 000000000000000000000000000000000000000000000000000000000... is out of range for bigint",
                        "BIGINT <- Double 4.0 => refused: expected bigint, got number 4.0",
                        "BIGINT <- Float 4.0 => refused: expected bigint, got number 4.0",
                        "BIGINT <- Boolean true => refused: expected bigint, got boolean true",
                        "BIGINT <- Instant 1970-01-01T00:00:00Z => refused: expected bigint, got Instant 1970-01-01T00:00:00Z",
                        "INTEGER <- Long 2147483647 => Long 2147483647 | \"2147483647\"",
                        "INTEGER <- Long 2147483648 => refused: value 2147483648 is out of range for integer",
                        "INTEGER <- Long -2147483648 => Long -2147483648 | \"-2147483648\"",
                        "INTEGER <- Long -2147483649 => refused: value -2147483649 is out of range for integer",
                        "INTEGER <- \"2147483648\" => refused: value 2147483648 is out of range for integer",
                        "INTEGER <- BigDecimal 2147483648 => refused: value 2147483648 is out of range for integer",
                        "INTEGER <- \"x\" => refused: expected integer, got string \"x\"",
                        "SMALLINT <- Integer 32767 => Long 32767 | \"32767\"",
                        "SMALLINT <- Integer 32768 => refused: value 32768 is out of range for smallint",
                        "SMALLINT <- Long -32768 => Long -32768 | \"-32768\"",
                        "SMALLINT <- Long -32769 => refused: value -32769 is out of range for smallint",
                        "SMALLINT <- \"-32769\" => refused: value -32769 is out of range for smallint",
                        "SMALLINT <- Double 1.5 => refused: expected smallint, got number 1.5"));
    }

    @Test
    void numeric() {
        assertThat(outcomes(
                c(ColumnType.NUMERIC, new BigDecimal("42.50")),
                c(ColumnType.NUMERIC, new BigDecimal("1E+3")),
                c(ColumnType.NUMERIC, new BigDecimal("-0.000")),
                c(ColumnType.NUMERIC, new BigDecimal("0E+5")),
                c(ColumnType.NUMERIC, new BigDecimal(BigInteger.ZERO, 16_384)),
                c(ColumnType.NUMERIC, new BigDecimal(BigInteger.ZERO, 16_383)),
                c(ColumnType.NUMERIC, BigInteger.TEN.pow(30)),
                c(ColumnType.NUMERIC, 42L),
                c(ColumnType.NUMERIC, 42),
                c(ColumnType.NUMERIC, (short) -3),
                c(ColumnType.NUMERIC, (byte) 3),
                c(ColumnType.NUMERIC, 0.1),
                c(ColumnType.NUMERIC, 1.0e10),
                c(ColumnType.NUMERIC, 1.0e-7),
                c(ColumnType.NUMERIC, -0.0),
                c(ColumnType.NUMERIC, 0.1f),
                c(ColumnType.NUMERIC, Double.NaN),
                c(ColumnType.NUMERIC, Double.NEGATIVE_INFINITY),
                c(ColumnType.NUMERIC, Float.POSITIVE_INFINITY),
                c(ColumnType.NUMERIC, " 1.50 "),
                c(ColumnType.NUMERIC, "-1.5e3"),
                c(ColumnType.NUMERIC, "+.5"),
                c(ColumnType.NUMERIC, "1,5"),
                c(ColumnType.NUMERIC, ""),
                c(ColumnType.NUMERIC, "Infinity"),
                c(ColumnType.NUMERIC, "0.000"),
                c(ColumnType.NUMERIC, "0e-20000"),
                c(ColumnType.NUMERIC, "1." + "0".repeat(1_500)),
                c(ColumnType.NUMERIC, "1" + "0".repeat(1_500) + ".25"),
                c(ColumnType.NUMERIC, "1" + "x".repeat(1_500)),
                c(ColumnType.NUMERIC, "1e131072"),
                c(ColumnType.NUMERIC, "1e-16384"),
                c(ColumnType.NUMERIC, "9".repeat(131_072 + 16_383 + 33)),
                c(ColumnType.NUMERIC, true),
                c(ColumnType.NUMERIC, List.of(1))))
                .isEqualTo(List.of(
                        "NUMERIC <- BigDecimal 42.50 => BigDecimal 42.50 | \"42.5\"",
                        "NUMERIC <- BigDecimal 1E+3 => BigDecimal 1E+3 | \"1000\"",
                        "NUMERIC <- BigDecimal 0.000 => BigDecimal 0.000 | \"0\"",
                        "NUMERIC <- BigDecimal 0E+5 => BigDecimal 0 | \"0\"",
                        "NUMERIC <- BigDecimal 0E-16384 => BigDecimal 0 | \"0\"",
                        "NUMERIC <- BigDecimal 0E-16383 => BigDecimal 0E-16383 | \"0\"",
                        "NUMERIC <- BigInteger 1000000000000000000000000000000 => "
                                + "BigDecimal 1000000000000000000000000000000 | \"1000000000000000000000000000000\"",
                        "NUMERIC <- Long 42 => BigDecimal 42 | \"42\"",
                        "NUMERIC <- Integer 42 => BigDecimal 42 | \"42\"",
                        "NUMERIC <- Short -3 => BigDecimal -3 | \"-3\"",
                        "NUMERIC <- Byte 3 => BigDecimal 3 | \"3\"",
                        "NUMERIC <- Double 0.1 => BigDecimal 0.1 | \"0.1\"",
                        "NUMERIC <- Double 1.0E10 => BigDecimal 1.0E+10 | \"10000000000\"",
                        "NUMERIC <- Double 1.0E-7 => BigDecimal 1.0E-7 | \"0.0000001\"",
                        "NUMERIC <- Double -0.0 => BigDecimal 0.0 | \"0\"",
                        "NUMERIC <- Float 0.1 => BigDecimal 0.1 | \"0.1\"",
                        "NUMERIC <- Double NaN => refused: expected a finite numeric, got number NaN",
                        "NUMERIC <- Double -Infinity => refused: expected a finite numeric, got number -Infinity",
                        "NUMERIC <- Float Infinity => refused: expected a finite numeric, got number Infinity",
                        "NUMERIC <- \" 1.50 \" => BigDecimal 1.50 | \"1.5\"",
                        "NUMERIC <- \"-1.5e3\" => BigDecimal -1.5E+3 | \"-1500\"",
                        "NUMERIC <- \"+.5\" => BigDecimal 0.5 | \"0.5\"",
                        "NUMERIC <- \"1,5\" => refused: expected numeric, got string \"1,5\"",
                        "NUMERIC <- \"\" => refused: expected numeric, got string \"\"",
                        "NUMERIC <- \"Infinity\" => refused: expected numeric, got string \"Infinity\"",
                        "NUMERIC <- \"0.000\" => BigDecimal 0.000 | \"0\"",
                        "NUMERIC <- \"0e-20000\" => BigDecimal 0 | \"0\"",
                        "NUMERIC <- \"1.0000000000000000000000000000...(1502 chars)\" => "
                                + "BigDecimal 1.0000000000000000000000000000...(1502 chars) | \"1\"",
                        "NUMERIC <- \"100000000000000000000000000000...(1504 chars)\" => "
                                + "BigDecimal 100000000000000000000000000000...(1504 chars) | \"100000000000000000000000000000...(1504 chars)\"",
                        "NUMERIC <- \"1xxxxxxxxxxxxxxxxxxxxxxxxxxxxx...(1501 chars)\" => "
                                + "refused: expected numeric, got string \"1xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\"",
                        "NUMERIC <- \"1e131072\" => "
                                + "refused: numeric 1E+131072 has 131073 digits before the decimal point; PostgreSQL's numeric holds at most "
                                + "131072",
                        "NUMERIC <- \"1e-16384\" => "
                                + "refused: numeric 1E-16384 has 16384 digits after the decimal point; PostgreSQL's numeric holds at most 16383",
                        "NUMERIC <- \"999999999999999999999999999999...(147488 chars)\" => "
                                + "refused: numeric text of 147488 characters is longer than any value PostgreSQL's numeric holds (131072 digits "
                                + "before the point, 16383 after)",
                        "NUMERIC <- Boolean true => refused: expected numeric, got boolean true",
                        "NUMERIC <- List [1] => refused: expected numeric, got array of 1 element"));
    }

    @Test
    void doublePrecision() {
        assertThat(outcomes(
                c(ColumnType.DOUBLE, 0.1),
                c(ColumnType.DOUBLE, -0.0),
                c(ColumnType.DOUBLE, 1.0e20),
                c(ColumnType.DOUBLE, 1.5e-7),
                c(ColumnType.DOUBLE, 100.0),
                c(ColumnType.DOUBLE, Double.MAX_VALUE),
                c(ColumnType.DOUBLE, Double.MIN_VALUE),
                c(ColumnType.DOUBLE, 0.1f),
                c(ColumnType.DOUBLE, 42L),
                c(ColumnType.DOUBLE, Long.MAX_VALUE),
                c(ColumnType.DOUBLE, new BigDecimal("1.25")),
                c(ColumnType.DOUBLE, new BigDecimal("1e400")),
                c(ColumnType.DOUBLE, BigInteger.TEN),
                c(ColumnType.DOUBLE, " 2.5 "),
                c(ColumnType.DOUBLE, "1e3"),
                c(ColumnType.DOUBLE, "0x1p3"),
                c(ColumnType.DOUBLE, "2.5d"),
                c(ColumnType.DOUBLE, "NaN"),
                c(ColumnType.DOUBLE, "-Infinity"),
                c(ColumnType.DOUBLE, "1e400"),
                c(ColumnType.DOUBLE, "two"),
                c(ColumnType.DOUBLE, Double.NaN),
                c(ColumnType.DOUBLE, Float.NEGATIVE_INFINITY),
                c(ColumnType.DOUBLE, false)))
                .isEqualTo(List.of(
                        "DOUBLE <- Double 0.1 => Double 0.1 | \"0.1\"",
                        "DOUBLE <- Double -0.0 => Double -0.0 | \"0\"",
                        "DOUBLE <- Double 1.0E20 => Double 1.0E20 | \"100000000000000000000\"",
                        "DOUBLE <- Double 1.5E-7 => Double 1.5E-7 | \"0.00000015\"",
                        "DOUBLE <- Double 100.0 => Double 100.0 | \"100\"",
                        "DOUBLE <- Double 1.7976931348623157E308 => "
                                + "Double 1.7976931348623157E308 | \"179769313486231570000000000000...(309 chars)\"",
                        "DOUBLE <- Double 4.9E-324 => Double 4.9E-324 | \"0.0000000000000000000000000000...(327 chars)\"",
                        "DOUBLE <- Float 0.1 => Double 0.10000000149011612 | \"0.10000000149011612\"",
                        "DOUBLE <- Long 42 => Double 42.0 | \"42\"",
                        "DOUBLE <- Long 9223372036854775807 => Double 9.223372036854776E18 | \"9223372036854776000\"",
                        "DOUBLE <- BigDecimal 1.25 => Double 1.25 | \"1.25\"",
                        "DOUBLE <- BigDecimal 1E+400 => refused: expected a finite double precision, got number 1E+400",
                        "DOUBLE <- BigInteger 10 => Double 10.0 | \"10\"",
                        "DOUBLE <- \" 2.5 \" => Double 2.5 | \"2.5\"",
                        "DOUBLE <- \"1e3\" => Double 1000.0 | \"1000\"",
                        "DOUBLE <- \"0x1p3\" => Double 8.0 | \"8\"",
                        "DOUBLE <- \"2.5d\" => Double 2.5 | \"2.5\"",
                        "DOUBLE <- \"NaN\" => refused: expected a finite double precision, got string \"NaN\"",
                        "DOUBLE <- \"-Infinity\" => refused: expected a finite double precision, got string \"-Infinity\"",
                        "DOUBLE <- \"1e400\" => refused: expected a finite double precision, got string \"1e400\"",
                        "DOUBLE <- \"two\" => refused: expected double precision, got string \"two\"",
                        "DOUBLE <- Double NaN => refused: expected a finite double precision, got number NaN",
                        "DOUBLE <- Float -Infinity => refused: expected a finite double precision, got number -Infinity",
                        "DOUBLE <- Boolean false => refused: expected double precision, got boolean false"));
    }

    @Test
    void booleanAndUuid() {
        assertThat(outcomes(
                c(ColumnType.BOOLEAN, true),
                c(ColumnType.BOOLEAN, false),
                c(ColumnType.BOOLEAN, "true"),
                c(ColumnType.BOOLEAN, "false"),
                c(ColumnType.BOOLEAN, "TRUE"),
                c(ColumnType.BOOLEAN, " true"),
                c(ColumnType.BOOLEAN, "t"),
                c(ColumnType.BOOLEAN, 1L),
                c(ColumnType.BOOLEAN, new byte[] {1}),
                c(ColumnType.UUID_TYPE, UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e")),
                c(ColumnType.UUID_TYPE, "0F8FAD5B-D9CB-469F-A165-70867728950E"),
                c(ColumnType.UUID_TYPE, "1-2-3-4-5"),
                c(ColumnType.UUID_TYPE, " 0f8fad5b-d9cb-469f-a165-70867728950e"),
                c(ColumnType.UUID_TYPE, "not-a-uuid"),
                c(ColumnType.UUID_TYPE, 7L),
                c(ColumnType.UUID_TYPE, new byte[16])))
                .isEqualTo(List.of(
                        "BOOLEAN <- Boolean true => Boolean true | \"true\"",
                        "BOOLEAN <- Boolean false => Boolean false | \"false\"",
                        "BOOLEAN <- \"true\" => Boolean true | \"true\"",
                        "BOOLEAN <- \"false\" => Boolean false | \"false\"",
                        "BOOLEAN <- \"TRUE\" => refused: expected boolean, got string \"TRUE\"",
                        "BOOLEAN <- \" true\" => refused: expected boolean, got string \" true\"",
                        "BOOLEAN <- \"t\" => refused: expected boolean, got string \"t\"",
                        "BOOLEAN <- Long 1 => refused: expected boolean, got number 1",
                        "BOOLEAN <- byte[] [1] => refused: expected boolean, got bytes (1)",
                        "UUID_TYPE <- UUID 0f8fad5b-d9cb-469f-a165-70867728950e => "
                                + "UUID 0f8fad5b-d9cb-469f-a165-70867728950e | \"0f8fad5b-d9cb-469f-a165-70867728950e\"",
                        "UUID_TYPE <- \"0F8FAD5B-D9CB-469F-A165-70867728950E\" => "
                                + "UUID 0f8fad5b-d9cb-469f-a165-70867728950e | \"0f8fad5b-d9cb-469f-a165-70867728950e\"",
                        "UUID_TYPE <- \"1-2-3-4-5\" => "
                                + "UUID 00000001-0002-0003-0004-000000000005 | \"00000001-0002-0003-0004-000000000005\"",
                        "UUID_TYPE <- \" 0f8fad5b-d9cb-469f-a165-70867728950e\" => "
                                + "refused: expected uuid, got string \" 0f8fad5b-d9cb-469f-a165-70867728950e\"",
                        "UUID_TYPE <- \"not-a-uuid\" => refused: expected uuid, got string \"not-a-uuid\"",
                        "UUID_TYPE <- Long 7 => refused: expected uuid, got number 7",
                        "UUID_TYPE <- byte[] [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] => "
                                + "refused: expected uuid, got bytes (16)"));
    }

    @Test
    void dateAndTime() {
        assertThat(outcomes(
                c(ColumnType.DATE, LocalDate.of(2018, 6, 20)),
                c(ColumnType.DATE, "2018-06-20"),
                c(ColumnType.DATE, " 2018-06-20"),
                c(ColumnType.DATE, "2018-6-20"),
                c(ColumnType.DATE, "2018-02-30"),
                c(ColumnType.DATE, "0001-01-01"),
                c(ColumnType.DATE, "9999-12-31"),
                c(ColumnType.DATE, "+10000-01-01"),
                c(ColumnType.DATE, LocalDate.of(0, 12, 31)),
                c(ColumnType.DATE, LocalDate.MIN),
                c(ColumnType.DATE, Instant.EPOCH),
                c(ColumnType.DATE, 17_000L),
                c(ColumnType.TIME, LocalTime.of(13, 13, 16, 945_104_999)),
                c(ColumnType.TIME, LocalTime.MAX),
                c(ColumnType.TIME, LocalTime.MIDNIGHT),
                c(ColumnType.TIME, "13:13"),
                c(ColumnType.TIME, " 13:13:16.5 "),
                c(ColumnType.TIME, "13:13:16.9451049"),
                c(ColumnType.TIME, "24:00:00"),
                c(ColumnType.TIME, "13:13:16+02:00"),
                c(ColumnType.TIME, "1:13"),
                c(ColumnType.TIME, 3_600L),
                c(ColumnType.TIME, Instant.EPOCH)))
                .isEqualTo(List.of(
                        "DATE <- LocalDate 2018-06-20 => LocalDate 2018-06-20 | \"2018-06-20\"",
                        "DATE <- \"2018-06-20\" => LocalDate 2018-06-20 | \"2018-06-20\"",
                        "DATE <- \" 2018-06-20\" => refused: expected date, got string \" 2018-06-20\"",
                        "DATE <- \"2018-6-20\" => refused: expected date, got string \"2018-6-20\"",
                        "DATE <- \"2018-02-30\" => refused: expected date, got string \"2018-02-30\"",
                        "DATE <- \"0001-01-01\" => LocalDate 0001-01-01 | \"0001-01-01\"",
                        "DATE <- \"9999-12-31\" => LocalDate 9999-12-31 | \"9999-12-31\"",
                        "DATE <- \"+10000-01-01\" => "
                                + "refused: date +10000-01-01 is outside the supported range 0001-01-01 to 9999-12-31",
                        "DATE <- LocalDate 0000-12-31 => "
                                + "refused: date 0000-12-31 is outside the supported range 0001-01-01 to 9999-12-31",
                        "DATE <- LocalDate -999999999-01-01 => "
                                + "refused: date -999999999-01-01 is outside the supported range 0001-01-01 to 9999-12-31",
                        "DATE <- Instant 1970-01-01T00:00:00Z => refused: expected date, got Instant 1970-01-01T00:00:00Z",
                        "DATE <- Long 17000 => refused: expected date, got number 17000",
                        "TIME <- LocalTime 13:13:16.945104999 => LocalTime 13:13:16.945104 | \"13:13:16.945104\"",
                        "TIME <- LocalTime 23:59:59.999999999 => LocalTime 23:59:59.999999 | \"23:59:59.999999\"",
                        "TIME <- LocalTime 00:00 => LocalTime 00:00 | \"00:00:00.000000\"",
                        "TIME <- \"13:13\" => LocalTime 13:13 | \"13:13:00.000000\"",
                        "TIME <- \" 13:13:16.5 \" => LocalTime 13:13:16.500 | \"13:13:16.500000\"",
                        "TIME <- \"13:13:16.9451049\" => LocalTime 13:13:16.945104 | \"13:13:16.945104\"",
                        "TIME <- \"24:00:00\" => refused: expected time without time zone, got string \"24:00:00\"",
                        "TIME <- \"13:13:16+02:00\" => "
                                + "refused: expected time without time zone, got string \"13:13:16+02:00\"",
                        "TIME <- \"1:13\" => refused: expected time without time zone, got string \"1:13\"",
                        "TIME <- Long 3600 => refused: expected time without time zone, got number 3600",
                        "TIME <- Instant 1970-01-01T00:00:00Z => "
                                + "refused: expected time without time zone, got Instant 1970-01-01T00:00:00Z"));
    }

    @Test
    void timestamps() {
        assertThat(outcomes(
                c(ColumnType.TIMESTAMPTZ, Instant.parse("2018-06-20T15:13:16.945104999Z")),
                c(ColumnType.TIMESTAMPTZ, Instant.parse("2018-06-20T15:13:16Z")),
                c(ColumnType.TIMESTAMPTZ, Instant.parse("0001-01-01T00:00:00Z")),
                c(ColumnType.TIMESTAMPTZ, Instant.parse("9999-12-31T23:59:59.9999999Z")),
                c(ColumnType.TIMESTAMPTZ, Instant.parse("0000-12-31T23:59:59.999999Z")),
                c(ColumnType.TIMESTAMPTZ, LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_999)),
                c(ColumnType.TIMESTAMPTZ, LocalDateTime.of(0, 12, 31, 23, 59)),
                c(ColumnType.TIMESTAMPTZ, "2018-06-20T15:13:16.945104Z"),
                c(ColumnType.TIMESTAMPTZ, "2018-06-20T17:13:16.9451049+02:00"),
                c(ColumnType.TIMESTAMPTZ, " 2018-06-20T15:13:16Z "),
                c(ColumnType.TIMESTAMPTZ, "2018-06-20T15:13Z"),
                c(ColumnType.TIMESTAMPTZ, "2018-06-20 15:13:16Z"),
                c(ColumnType.TIMESTAMPTZ, "2018-06-20T15:13:16"),
                c(ColumnType.TIMESTAMPTZ, "+10000-01-01T00:00:00Z"),
                c(ColumnType.TIMESTAMPTZ, "soon"),
                c(ColumnType.TIMESTAMPTZ, 1_529_507_596_945L),
                c(ColumnType.TIMESTAMPTZ, LocalDate.of(2018, 6, 20)),
                c(ColumnType.TIMESTAMP, LocalDateTime.of(2018, 6, 20, 15, 13, 16, 945_104_999)),
                c(ColumnType.TIMESTAMP, LocalDateTime.of(10000, 1, 1, 0, 0)),
                c(ColumnType.TIMESTAMP, Instant.parse("2018-06-20T15:13:16.945104999Z")),
                c(ColumnType.TIMESTAMP, Instant.parse("9999-12-31T23:59:59.9999999Z")),
                c(ColumnType.TIMESTAMP, Instant.parse("0000-12-31T23:59:59.999999Z")),
                c(ColumnType.TIMESTAMP, "2018-06-20T15:13:16.945104"),
                c(ColumnType.TIMESTAMP, "2018-06-20 15:13:16"),
                c(ColumnType.TIMESTAMP, " 2018-06-20T15:13 "),
                c(ColumnType.TIMESTAMP, "2018-06-20"),
                c(ColumnType.TIMESTAMP, "2018-06-20T15:13:16Z"),
                c(ColumnType.TIMESTAMP, "2018-06-20 15:13:16+02:00"),
                c(ColumnType.TIMESTAMP, "0000-12-31T23:59:59"),
                c(ColumnType.TIMESTAMP, "later"),
                c(ColumnType.TIMESTAMP, LocalDate.of(2018, 6, 20))))
                .isEqualTo(List.of(
                        "TIMESTAMPTZ <- Instant 2018-06-20T15:13:16.945104999Z => "
                                + "Instant 2018-06-20T15:13:16.945104Z | \"2018-06-20T15:13:16.945104Z\"",
                        "TIMESTAMPTZ <- Instant 2018-06-20T15:13:16Z => "
                                + "Instant 2018-06-20T15:13:16Z | \"2018-06-20T15:13:16.000000Z\"",
                        "TIMESTAMPTZ <- Instant 0001-01-01T00:00:00Z => "
                                + "Instant 0001-01-01T00:00:00Z | \"0001-01-01T00:00:00.000000Z\"",
                        "TIMESTAMPTZ <- Instant 9999-12-31T23:59:59.999999900Z => "
                                + "Instant 9999-12-31T23:59:59.999999Z | \"9999-12-31T23:59:59.999999Z\"",
                        "TIMESTAMPTZ <- Instant 0000-12-31T23:59:59.999999Z => "
                                + "refused: timestamp 0000-12-31T23:59:59.999999Z is outside the supported range 0001-01-01T00:00:00Z to "
                                + "9999-12-31T23:59:59.999999Z",
                        "TIMESTAMPTZ <- LocalDateTime 2018-06-20T15:13:16.945104999 => "
                                + "Instant 2018-06-20T15:13:16.945104Z | \"2018-06-20T15:13:16.945104Z\"",
                        "TIMESTAMPTZ <- LocalDateTime 0000-12-31T23:59 => "
                                + "refused: timestamp 0000-12-31T23:59:00Z is outside the supported range 0001-01-01T00:00:00Z to "
                                + "9999-12-31T23:59:59.999999Z",
                        "TIMESTAMPTZ <- \"2018-06-20T15:13:16.945104Z\" => "
                                + "Instant 2018-06-20T15:13:16.945104Z | \"2018-06-20T15:13:16.945104Z\"",
                        "TIMESTAMPTZ <- \"2018-06-20T17:13:16.9451049+02:00\" => "
                                + "Instant 2018-06-20T15:13:16.945104Z | \"2018-06-20T15:13:16.945104Z\"",
                        "TIMESTAMPTZ <- \" 2018-06-20T15:13:16Z \" => "
                                + "Instant 2018-06-20T15:13:16Z | \"2018-06-20T15:13:16.000000Z\"",
                        "TIMESTAMPTZ <- \"2018-06-20T15:13Z\" => "
                                + "Instant 2018-06-20T15:13:00Z | \"2018-06-20T15:13:00.000000Z\"",
                        "TIMESTAMPTZ <- \"2018-06-20 15:13:16Z\" => "
                                + "refused: expected timestamp with time zone, got string \"2018-06-20 15:13:16Z\"",
                        "TIMESTAMPTZ <- \"2018-06-20T15:13:16\" => "
                                + "refused: expected timestamp with time zone, got string \"2018-06-20T15:13:16\"",
                        "TIMESTAMPTZ <- \"+10000-01-01T00:00:00Z\" => "
                                + "refused: timestamp +10000-01-01T00:00:00Z is outside the supported range 0001-01-01T00:00:00Z to "
                                + "9999-12-31T23:59:59.999999Z",
                        "TIMESTAMPTZ <- \"soon\" => refused: expected timestamp with time zone, got string \"soon\"",
                        "TIMESTAMPTZ <- Long 1529507596945 => "
                                + "refused: expected timestamp with time zone, got number 1529507596945",
                        "TIMESTAMPTZ <- LocalDate 2018-06-20 => "
                                + "refused: expected timestamp with time zone, got LocalDate 2018-06-20",
                        "TIMESTAMP <- LocalDateTime 2018-06-20T15:13:16.945104999 => "
                                + "LocalDateTime 2018-06-20T15:13:16.945104 | \"2018-06-20T15:13:16.945104\"",
                        "TIMESTAMP <- LocalDateTime +10000-01-01T00:00 => "
                                + "refused: timestamp +10000-01-01T00:00 is outside the supported range 0001-01-01T00:00:00.000000 to "
                                + "9999-12-31T23:59:59.999999",
                        "TIMESTAMP <- Instant 2018-06-20T15:13:16.945104999Z => "
                                + "LocalDateTime 2018-06-20T15:13:16.945104 | \"2018-06-20T15:13:16.945104\"",
                        "TIMESTAMP <- Instant 9999-12-31T23:59:59.999999900Z => "
                                + "LocalDateTime 9999-12-31T23:59:59.999999 | \"9999-12-31T23:59:59.999999\"",
                        "TIMESTAMP <- Instant 0000-12-31T23:59:59.999999Z => "
                                + "refused: timestamp 0000-12-31T23:59:59.999999Z is outside the supported range 0001-01-01T00:00:00Z to "
                                + "9999-12-31T23:59:59.999999Z",
                        "TIMESTAMP <- \"2018-06-20T15:13:16.945104\" => "
                                + "LocalDateTime 2018-06-20T15:13:16.945104 | \"2018-06-20T15:13:16.945104\"",
                        "TIMESTAMP <- \"2018-06-20 15:13:16\" => "
                                + "LocalDateTime 2018-06-20T15:13:16 | \"2018-06-20T15:13:16.000000\"",
                        "TIMESTAMP <- \" 2018-06-20T15:13 \" => "
                                + "LocalDateTime 2018-06-20T15:13 | \"2018-06-20T15:13:00.000000\"",
                        "TIMESTAMP <- \"2018-06-20\" => "
                                + "refused: expected timestamp without time zone, got string \"2018-06-20\"",
                        "TIMESTAMP <- \"2018-06-20T15:13:16Z\" => "
                                + "refused: expected timestamp without time zone, got string \"2018-06-20T15:13:16Z\" with an offset: a "
                                + "timestamp without time zone takes a local date-time (declare the column timestamptz for instants)",
                        "TIMESTAMP <- \"2018-06-20 15:13:16+02:00\" => "
                                + "refused: expected timestamp without time zone, got string \"2018-06-20 15:13:16+02:00\" with an offset: a "
                                + "timestamp without time zone takes a local date-time (declare the column timestamptz for instants)",
                        "TIMESTAMP <- \"0000-12-31T23:59:59\" => "
                                + "refused: timestamp 0000-12-31T23:59:59 is outside the supported range 0001-01-01T00:00:00.000000 to "
                                + "9999-12-31T23:59:59.999999",
                        "TIMESTAMP <- \"later\" => refused: expected timestamp without time zone, got string \"later\"",
                        "TIMESTAMP <- LocalDate 2018-06-20 => "
                                + "refused: expected timestamp without time zone, got LocalDate 2018-06-20"));
    }

    @Test
    void jsonbAndBytea() {
        assertThat(outcomes(
                c(ColumnType.JSONB, "{\"b\": 1, \"a\": [true, null, 1.50]}"),
                c(ColumnType.JSONB, " 12 "),
                c(ColumnType.JSONB, "\"tab\\there\""),
                c(ColumnType.JSONB, List.of("a", 1L)),
                c(ColumnType.JSONB, Map.of("k", "v")),
                c(ColumnType.JSONB, 12L),
                c(ColumnType.JSONB, new BigDecimal("1.5E+3")),
                c(ColumnType.JSONB, false),
                c(ColumnType.JSONB, "{"),
                c(ColumnType.JSONB, "   "),
                c(ColumnType.JSONB, Instant.EPOCH),
                c(ColumnType.JSONB, new byte[] {1}),
                c(ColumnType.BYTEA, new byte[] {0, 1, (byte) 0xff}),
                c(ColumnType.BYTEA, new byte[0]),
                c(ColumnType.BYTEA, ByteBuffer.wrap(new byte[] {5, 6, 7}, 1, 2)),
                c(ColumnType.BYTEA, "AAH/"),
                c(ColumnType.BYTEA, "AAH"),
                c(ColumnType.BYTEA, "\\x0001ff"),
                c(ColumnType.BYTEA, "\\X0001FF"),
                c(ColumnType.BYTEA, "\\x"),
                c(ColumnType.BYTEA, "\\x0"),
                c(ColumnType.BYTEA, "\\x 00"),
                c(ColumnType.BYTEA, "x00"),
                c(ColumnType.BYTEA, "not base64!"),
                c(ColumnType.BYTEA, 5L),
                c(ColumnType.BYTEA, List.of((byte) 1))))
                .isEqualTo(List.of(
                        "JSONB <- \"{\"b\": 1, \"a\": [true, null, 1.50]}\" => "
                                + "\"{\"a\":[true,null,1.50],\"b\":1}\" | \"{\"a\":[true,null,1.50],\"b\":1}\"",
                        "JSONB <- \" 12 \" => \"12\" | \"12\"",
                        "JSONB <- \"\"tab\\there\"\" => \"\"tab\\there\"\" | \"\"tab\\there\"\"",
                        "JSONB <- List [a, 1] => \"[\"a\",1]\" | \"[\"a\",1]\"",
                        "JSONB <- Map {k=v} => \"{\"k\":\"v\"}\" | \"{\"k\":\"v\"}\"",
                        "JSONB <- Long 12 => \"12\" | \"12\"",
                        "JSONB <- BigDecimal 1.5E+3 => \"1500\" | \"1500\"",
                        "JSONB <- Boolean false => \"false\" | \"false\"",
                        "JSONB <- \"{\" => "
                                + "refused: expected jsonb (a JSON text), got string \"{\": not valid JSON: Unexpected end-of-input: expected "
                                + "close marker for Object (start marker at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` "
                                + "disabled); line: 1, column: 1])",
                        "JSONB <- \"   \" => refused: expected jsonb (a JSON text), got string \"   \": no JSON value",
                        "JSONB <- Instant 1970-01-01T00:00:00Z => "
                                + "refused: expected jsonb, got Instant 1970-01-01T00:00:00Z: not a JSON value",
                        "JSONB <- byte[] [1] => refused: expected jsonb, got bytes (1): not a JSON value",
                        "BYTEA <- byte[] [0, 1, -1] => byte[] [0, 1, -1] | \"\\x0001ff\"",
                        "BYTEA <- byte[] [] => byte[] [] | \"\\x\"",
                        "BYTEA <- ByteBuffer of 2 => byte[] [6, 7] | \"\\x0607\"",
                        "BYTEA <- \"AAH/\" => byte[] [0, 1, -1] | \"\\x0001ff\"",
                        "BYTEA <- \"AAH\" => byte[] [0, 1] | \"\\x0001\"",
                        "BYTEA <- \"\\x0001ff\" => byte[] [0, 1, -1] | \"\\x0001ff\"",
                        "BYTEA <- \"\\X0001FF\" => byte[] [0, 1, -1] | \"\\x0001ff\"",
                        "BYTEA <- \"\\x\" => byte[] [] | \"\\x\"",
                        "BYTEA <- \"\\x0\" => refused: expected bytea, got string \"\\x0\": not \\x and pairs of hex digits",
                        "BYTEA <- \"\\x 00\" => "
                                + "refused: expected bytea, got string \"\\x 00\": not \\x and pairs of hex digits",
                        "BYTEA <- \"x00\" => byte[] [-57, 77] | \"\\xc74d\"",
                        "BYTEA <- \"not base64!\" => "
                                + "refused: expected bytea as base64 (or \\x and hex digits), got string \"not base64!\": Illegal base64 "
                                + "character 20",
                        "BYTEA <- Long 5 => refused: expected bytea, got number 5",
                        "BYTEA <- List [1] => refused: expected bytea, got array of 1 element"));
    }

    @Test
    void textSqlOfEveryType() {
        List<String> out = new ArrayList<>();
        for (ColumnType t : ColumnType.values()) {
            out.add(t + " " + t.sqlName() + ": " + t.textSql("c.\"v\""));
        }
        assertThat(out).isEqualTo(List.of(
                "TEXT text: (c.\"v\")::text",
                "SMALLINT smallint: (c.\"v\")::text",
                "INTEGER integer: (c.\"v\")::text",
                "BIGINT bigint: (c.\"v\")::text",
                "NUMERIC numeric: (c.\"v\")::text",
                "DOUBLE double precision: (c.\"v\")::text",
                "BOOLEAN boolean: (c.\"v\")::text",
                "DATE date: to_char(c.\"v\", 'YYYY-MM-DD')",
                "TIMESTAMPTZ timestamp with time zone: to_char(c.\"v\" AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')",
                "UUID_TYPE uuid: (c.\"v\")::text",
                "TIMESTAMP timestamp without time zone: to_char(c.\"v\", 'YYYY-MM-DD\"T\"HH24:MI:SS.US')",
                "TIME time without time zone: (c.\"v\")::text",
                "JSONB jsonb: (c.\"v\")::text",
                "BYTEA bytea: (c.\"v\")::text"));
    }

    @Test
    void configNames() {
        List<String> out = new ArrayList<>();
        for (String n : Arrays.asList("text", "varchar", "character varying", "smallint", "int2", "integer", "int", "int4", "bigint",
                "int8", "numeric", "decimal", "double precision", "double", "float8", "boolean", "bool", "date", "timestamptz",
                "timestamp with time zone", "uuid", "timestamp", "timestamp without time zone", "time", "time without time zone", "jsonb",
                "bytea", " Int4 ", "DOUBLE PRECISION", "double  precision", "float", "real", "json", "varchar(5)", "numeric(5,2)", "",
                null)) {
            out.add(shown(n) + " => " + ColumnType.fromConfig(n).map(ColumnType::name).orElse("none"));
        }
        out.add("supported: " + ColumnType.supportedNames());
        assertThat(out).isEqualTo(List.of(
                "\"text\" => TEXT",
                "\"varchar\" => TEXT",
                "\"character varying\" => TEXT",
                "\"smallint\" => SMALLINT",
                "\"int2\" => SMALLINT",
                "\"integer\" => INTEGER",
                "\"int\" => INTEGER",
                "\"int4\" => INTEGER",
                "\"bigint\" => BIGINT",
                "\"int8\" => BIGINT",
                "\"numeric\" => NUMERIC",
                "\"decimal\" => NUMERIC",
                "\"double precision\" => DOUBLE",
                "\"double\" => DOUBLE",
                "\"float8\" => DOUBLE",
                "\"boolean\" => BOOLEAN",
                "\"bool\" => BOOLEAN",
                "\"date\" => DATE",
                "\"timestamptz\" => TIMESTAMPTZ",
                "\"timestamp with time zone\" => TIMESTAMPTZ",
                "\"uuid\" => UUID_TYPE",
                "\"timestamp\" => TIMESTAMP",
                "\"timestamp without time zone\" => TIMESTAMP",
                "\"time\" => TIME",
                "\"time without time zone\" => TIME",
                "\"jsonb\" => JSONB",
                "\"bytea\" => BYTEA",
                "\" Int4 \" => INTEGER",
                "\"DOUBLE PRECISION\" => DOUBLE",
                "\"double  precision\" => none",
                "\"float\" => none",
                "\"real\" => none",
                "\"json\" => none",
                "\"varchar(5)\" => none",
                "\"numeric(5,2)\" => none",
                "\"\" => none",
                "null => none",
                "supported: text, varchar(n), smallint, integer, bigint, numeric, numeric(p,s), double precision, boolean, "
                        + "date, timestamp, timestamptz, time, uuid, jsonb, bytea"));
    }

    @Test
    void modifiers() {
        List<String> out = new ArrayList<>();
        for (String n : Arrays.asList("varchar(10)", "VARCHAR ( 10 )", "character varying(5)", "Character Varying (7)", "varchar(0)",
                "varchar(-1)", "varchar(10485760)", "varchar(10485761)", "varchar(99999999999)", "varchar(-99999999999)", "varchar(1,2)",
                "varchar()", "numeric(10)", "numeric(10,2)", "decimal( 10 , 2 )", "NUMERIC(1000,1000)", "numeric(1001)", "numeric(0)",
                "numeric(5,6)", "numeric(5,-1)", "numeric(99999999999,2)", "numeric(10,99999999999)", "numeric", "varchar", "text(5)",
                "int(4)", " numeric(3,1) ", null)) {
            String result;
            try {
                result = ColumnType.modifierFromConfig(n).map(m -> m + " " + m.base() + " " + m.sqlType()).orElse("none");
            } catch (IllegalArgumentException e) {
                result = "refused: " + e.getMessage();
            }
            out.add(shown(n) + " => " + result);
        }
        assertThat(out).isEqualTo(List.of(
                "\"varchar(10)\" => Length[maxLength=10] TEXT character varying(10)",
                "\"VARCHAR ( 10 )\" => Length[maxLength=10] TEXT character varying(10)",
                "\"character varying(5)\" => Length[maxLength=5] TEXT character varying(5)",
                "\"Character Varying (7)\" => Length[maxLength=7] TEXT character varying(7)",
                "\"varchar(0)\" => refused: varchar length must be between 1 and 10485760, got 0",
                "\"varchar(-1)\" => refused: varchar length must be between 1 and 10485760, got -1",
                "\"varchar(10485760)\" => Length[maxLength=10485760] TEXT character varying(10485760)",
                "\"varchar(10485761)\" => refused: varchar length must be between 1 and 10485760, got 10485761",
                "\"varchar(99999999999)\" => refused: varchar length must be between 1 and 10485760, got 2147483647",
                "\"varchar(-99999999999)\" => refused: varchar length must be between 1 and 10485760, got -2147483648",
                "\"varchar(1,2)\" => none",
                "\"varchar()\" => none",
                "\"numeric(10)\" => Precision[precision=10, scale=0] NUMERIC numeric(10,0)",
                "\"numeric(10,2)\" => Precision[precision=10, scale=2] NUMERIC numeric(10,2)",
                "\"decimal( 10 , 2 )\" => Precision[precision=10, scale=2] NUMERIC numeric(10,2)",
                "\"NUMERIC(1000,1000)\" => Precision[precision=1000, scale=1000] NUMERIC numeric(1000,1000)",
                "\"numeric(1001)\" => refused: numeric precision must be between 1 and 1000, got 1001",
                "\"numeric(0)\" => refused: numeric precision must be between 1 and 1000, got 0",
                "\"numeric(5,6)\" => refused: numeric scale must be between 0 and the precision 5, got 6",
                "\"numeric(5,-1)\" => refused: numeric scale must be between 0 and the precision 5, got -1",
                "\"numeric(99999999999,2)\" => refused: numeric precision must be between 1 and 1000, got 2147483647",
                "\"numeric(10,99999999999)\" => "
                        + "refused: numeric scale must be between 0 and the precision 10, got 2147483647",
                "\"numeric\" => none",
                "\"varchar\" => none",
                "\"text(5)\" => none",
                "\"int(4)\" => none",
                "\" numeric(3,1) \" => Precision[precision=3, scale=1] NUMERIC numeric(3,1)",
                "null => none"));
    }

    @Test
    void instantsAndBuffers() {
        List<String> out = new ArrayList<>();
        for (String s : Arrays.asList("2018-06-20T15:13:16.945104999Z", " 2018-06-20T17:13:16+02:00 ", "2018-06-20T15:13Z",
                "2018-06-20T15:13:16", "2018-06-20 15:13:16Z", "+10000-01-01T00:00:00Z", "x", "", null)) {
            out.add("parseInstant " + shown(s) + " => " + ColumnType.parseInstant(s).map(Instant::toString).orElse("empty"));
        }
        for (Instant t : List.of(ColumnType.MIN_INSTANT, ColumnType.MIN_INSTANT.minusNanos(1), ColumnType.MAX_INSTANT,
                ColumnType.MAX_INSTANT.plusNanos(1))) {
            out.add("inRange " + t + " => " + ColumnType.inRange(t));
        }
        ByteBuffer buffer = ByteBuffer.wrap(new byte[] {1, 2, 3, 4});
        buffer.position(1);
        out.add("bytesOf " + Arrays.toString(ColumnType.bytesOf(buffer)) + ", position after " + buffer.position());
        out.add("constants " + ColumnType.INSTANT_RANGE + " | " + ColumnType.MIN_DATE + " " + ColumnType.MAX_DATE + " | "
                + ColumnType.MIN_LOCAL_TIMESTAMP + " " + ColumnType.MAX_LOCAL_TIMESTAMP + " | " + ColumnType.NUMERIC_MAX_INTEGER_DIGITS
                + " " + ColumnType.NUMERIC_MAX_SCALE + " | " + ColumnType.CANONICAL_TIMESTAMP.format(ColumnType.MIN_INSTANT) + " "
                + ColumnType.CANONICAL_LOCAL_TIMESTAMP.format(ColumnType.MAX_LOCAL_TIMESTAMP) + " "
                + ColumnType.CANONICAL_TIME.format(LocalTime.NOON));
        assertThat(out).isEqualTo(List.of(
                "parseInstant \"2018-06-20T15:13:16.945104999Z\" => 2018-06-20T15:13:16.945104Z",
                "parseInstant \" 2018-06-20T17:13:16+02:00 \" => 2018-06-20T15:13:16Z",
                "parseInstant \"2018-06-20T15:13Z\" => 2018-06-20T15:13:00Z",
                "parseInstant \"2018-06-20T15:13:16\" => empty",
                "parseInstant \"2018-06-20 15:13:16Z\" => empty",
                "parseInstant \"+10000-01-01T00:00:00Z\" => +10000-01-01T00:00:00Z",
                "parseInstant \"x\" => empty",
                "parseInstant \"\" => empty",
                "parseInstant null => empty",
                "inRange 0001-01-01T00:00:00Z => true",
                "inRange 0000-12-31T23:59:59.999999999Z => false",
                "inRange 9999-12-31T23:59:59.999999Z => true",
                "inRange 9999-12-31T23:59:59.999999001Z => false",
                "bytesOf [2, 3, 4], position after 1",
                "constants 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z | 0001-01-01 9999-12-31 | 0001-01-01T00:00 "
                        + "9999-12-31T23:59:59.999999 | 131072 16383 | 0001-01-01T00:00:00.000000Z 9999-12-31T23:59:59.999999 "
                        + "12:00:00.000000"));
    }
}
