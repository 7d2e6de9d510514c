package io.dimstream.db.event;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** record_hash vectors (DESIGN section 3). */
class RecordHashTest {

    @Test
    void nullAndEmptyStringHashDifferently() {
        assertThat(RecordHash.hex(RecordHash.of(Arrays.asList((String) null))))
                .isNotEqualTo(RecordHash.hex(RecordHash.of(List.of(""))));
    }

    @Test
    void separatorInsideValuesCannotShiftAColumnBoundary() {
        assertThat(RecordHash.hex(RecordHash.of(List.of("a|b", "c"))))
                .isNotEqualTo(RecordHash.hex(RecordHash.of(List.of("a", "b|c"))));
    }

    @Test
    void trailingZerosOfNumericDoNotChangeTheHash() {
        List<ColumnType> numeric = List.of(ColumnType.NUMERIC);

        assertThat(RecordHash.hex(RecordHash.ofValues(numeric, List.of(ColumnType.NUMERIC.coerce(new BigDecimal("1.50"))))))
                .isEqualTo(RecordHash.hex(RecordHash.ofValues(numeric, List.of(ColumnType.NUMERIC.coerce(new BigDecimal("1.5"))))))
                .isEqualTo(RecordHash.hex(RecordHash.of(List.of("1.5"))));
    }

    @Test
    void numericCanonicalTextIsPlainWithoutTrailingZeros() {
        assertThat(ColumnType.NUMERIC.canonical(new BigDecimal("1.50"))).isEqualTo("1.5");
        assertThat(ColumnType.NUMERIC.canonical(new BigDecimal("1E+3"))).isEqualTo("1000");
        assertThat(ColumnType.NUMERIC.canonical(new BigDecimal("0.000"))).isEqualTo("0");
        assertThat(ColumnType.BIGINT.canonical(ColumnType.BIGINT.coerce("-42"))).isEqualTo("-42");
        assertThat(ColumnType.BOOLEAN.canonical(true)).isEqualTo("true");
        assertThat(ColumnType.DATE.canonical(ColumnType.DATE.coerce("2025-08-22"))).isEqualTo("2025-08-22");
    }

    @Test
    void timestampsAreCanonicalUtcWithSixFractionalDigitsAndZ() {
        assertThat(ColumnType.TIMESTAMPTZ.canonical(Instant.parse("2025-08-22T17:00:00Z")))
                .isEqualTo("2025-08-22T17:00:00.000000Z");
        assertThat(ColumnType.TIMESTAMPTZ.canonical(ColumnType.TIMESTAMPTZ.coerce("2025-08-22T19:00:00.1234567+02:00")))
                .isEqualTo("2025-08-22T17:00:00.123456Z");
        assertThat(RecordHash.hex(RecordHash.ofValues(List.of(ColumnType.TIMESTAMPTZ),
                List.of(ColumnType.TIMESTAMPTZ.coerce("2025-08-22T19:00:00+02:00")))))
                .isEqualTo(sha256Hex(encode("2025-08-22T17:00:00.000000Z")));
    }

    @Test
    void timestampTimeJsonbAndByteaHaveTheirCanonicalTexts() {
        assertThat(ColumnType.TIMESTAMP.canonical(ColumnType.TIMESTAMP.coerce("2025-08-22T17:00")))
                .isEqualTo("2025-08-22T17:00:00.000000");
        assertThat(ColumnType.TIMESTAMP.canonical(ColumnType.TIMESTAMP.coerce("0001-01-01 00:00:00.1234567")))
                .isEqualTo("0001-01-01T00:00:00.123456");
        assertThat(ColumnType.TIME.canonical(ColumnType.TIME.coerce("07:05"))).isEqualTo("07:05:00.000000");
        assertThat(ColumnType.JSONB.canonical(ColumnType.JSONB.coerce("{ \"b\": [1.50, 1e2], \"aa\": null, \"a\": \"\\u00e9\\n\" }")))
                .isEqualTo("{\"a\":\"\u00e9\\n\",\"b\":[1.50,100],\"aa\":null}");
        assertThat(ColumnType.BYTEA.canonical(ColumnType.BYTEA.coerce("AP8Q"))).isEqualTo("\\x00ff10");
        assertThat(RecordHash.hex(RecordHash.ofValues(List.of(ColumnType.TIMESTAMP, ColumnType.TIME, ColumnType.JSONB, ColumnType.BYTEA),
                List.of(ColumnType.TIMESTAMP.coerce("2025-08-22T17:00:00"), ColumnType.TIME.coerce("17:00:00"),
                        ColumnType.JSONB.coerce("[true]"), ColumnType.BYTEA.coerce("\\x00")))))
                .isEqualTo(sha256Hex(encode("2025-08-22T17:00:00.000000", "17:00:00.000000", "[true]", "\\x00")));
    }

    @Test
    void ydbExampleRowsHaveTheHashesOfTheExpectedFile() {
        assertThat(RecordHash.hex(RecordHash.of(List.of("John Doe", "Los Angeles"))))
                .isEqualTo("cfa6ad1f93f618831e3623d20780065494cf6f775dc5379cca770937825319ca");
        assertThat(RecordHash.hex(RecordHash.of(List.of("John Doe", "San Francisco"))))
                .isEqualTo("8471b4d79548f6a21eb3e2ff3ec637c5a1aee8ab0ffc44814cc2112f974b3207");
        assertThat(RecordHash.hex(RecordHash.of(List.of("Judy Doe", "New York"))))
                .isEqualTo("11f13b4d38ad8aa92ad79cb65dfd2887318f28ff13f8f00fc9e1942abf93e2b3");
    }

    @Test
    void hashIsSha256OverTheHandBuiltLengthPrefixedEncoding() {
        List<String> values = Arrays.asList("a", null, "", "é|✓x");
        byte[] byHand = encode(values.toArray(new String[0]));

        assertThat(HexFormat.of().formatHex(byHand))
                .isEqualTo("01" + "00000001" + "61" + "00" + "01" + "00000000" + "01" + "00000007" + "c3a97ce29c9378");
        assertThat(RecordHash.hex(RecordHash.of(values)))
                .isEqualTo(sha256Hex(byHand))
                // the same bytes through sha256sum, outside Java
                .isEqualTo("7f24f1a916984dad9c9d93f439861c3d6ef26dc2f64aa7067936cfe5cfcc4667");
    }

    /** 0x00 for NULL, else 0x01, the UTF-8 length as 4-byte big-endian, the UTF-8 bytes. */
    private static byte[] encode(String... values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String v : values) {
            if (v == null) {
                out.write(0x00);
            } else {
                byte[] b = v.getBytes(StandardCharsets.UTF_8);
                out.write(0x01);
                out.writeBytes(ByteBuffer.allocate(4).putInt(b.length).array());
                out.writeBytes(b);
            }
        }
        return out.toByteArray();
    }

    private static String sha256Hex(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A column added while running enters the hash after the config's columns, as a marker (0x03),
     * its name and its value, only when it holds a value: a NULL one leaves the hash as it was.
     */
    @Test
    void anEvolvedColumnEntersTheHashOnlyWithAValue() throws Exception {
        List<ColumnType> types = List.of(ColumnType.TEXT, ColumnType.TEXT, ColumnType.BIGINT);
        String before = RecordHash.hex(RecordHash.of(List.of("Ann", "Oslo")));

        assertThat(RecordHash.hex(RecordHash.ofValues(types, Arrays.asList("Ann", "Oslo", null), List.of("score")))).isEqualTo(before);
        assertThat(RecordHash.hex(RecordHash.ofValues(types.subList(0, 2), List.of("Ann", "Oslo"), List.of()))).isEqualTo(before);

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (String v : List.of("Ann", "Oslo")) {
            expected.write(1);
            expected.write(ByteBuffer.allocate(4).putInt(v.length()).array());
            expected.write(v.getBytes(StandardCharsets.UTF_8));
        }
        expected.write(3);
        expected.write(ByteBuffer.allocate(4).putInt(5).array());
        expected.write("score".getBytes(StandardCharsets.UTF_8));
        expected.write(1);
        expected.write(ByteBuffer.allocate(4).putInt(2).array());
        expected.write("42".getBytes(StandardCharsets.UTF_8));
        String withValue = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(expected.toByteArray()));
        assertThat(RecordHash.hex(RecordHash.ofValues(types, Arrays.asList("Ann", "Oslo", 42L), List.of("score")))).isEqualTo(withValue);

        // the name counts: the same value in another evolved column is another row
        assertThat(RecordHash.hex(RecordHash.of(List.of("Ann", "Oslo", "42"), List.of("points")))).isNotEqualTo(withValue);
        // and an evolved value differs from the same text in a config column (the marker)
        assertThat(RecordHash.hex(RecordHash.of(List.of("Ann", "Oslo", "42")))).isNotEqualTo(withValue);
    }
}
