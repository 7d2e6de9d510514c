package io.dimstream.db.entity;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link IsoInstant} reads what {@code OffsetDateTime.parse} reads, to the same instant, or leaves
 * the text to it: never a different instant, never one the formatter refuses.
 */
class IsoInstantTest {

    private static Instant formatter(String s) {
        try {
            return OffsetDateTime.parse(s).toInstant();
        } catch (DateTimeException e) {
            return null;
        }
    }

    @Property(tries = 20000)
    void whatItReadsIsWhatTheFormatterReads(@ForAll("texts") String s) {
        Instant fast = IsoInstant.parse(s);
        if (fast != null) {
            assertThat(fast).as(s).isEqualTo(formatter(s));
        }
    }

    @Example
    void theCommonFormsAreReadAndEveryOtherLeftToTheFormatter() {
        assertThat(IsoInstant.parse("2024-03-01T10:15:30Z")).isEqualTo(Instant.parse("2024-03-01T10:15:30Z"));
        assertThat(IsoInstant.parse("2024-03-01T10:15:30.5+01:30")).isEqualTo(Instant.parse("2024-03-01T08:45:30.500Z"));
        assertThat(IsoInstant.parse("2024-03-01T10:15:30.123456789-05:00")).isEqualTo(Instant.parse("2024-03-01T15:15:30.123456789Z"));
        assertThat(IsoInstant.parse("0000-01-01T00:00:00Z")).isEqualTo(OffsetDateTime.parse("0000-01-01T00:00:00Z").toInstant());
        assertThat(IsoInstant.parse("2024-02-29T23:59:59-00:00")).isEqualTo(Instant.parse("2024-02-29T23:59:59Z"));
        // forms the formatter reads too, left to it
        for (String other : new String[] {"2024-03-01t10:15:30z", "2024-03-01T10:15Z", "2024-03-01T10:15:30+01",
            "2024-03-01T10:15:30+01:00:30", "+12024-03-01T10:15:30Z", "2024-03-01T10:15:30.Z"}) {
            assertThat(IsoInstant.parse(other)).as(other).isNull();
            assertThat(formatter(other)).as(other).isNotNull();
        }
        // texts nobody reads
        for (String bad : new String[] {"2023-02-29T10:15:30Z", "2024-03-01T24:00:00Z", "2024-03-01T10:15:30+19:00",
            "2024-03-01T10:15:30.1234567890Z", "2024-03-01T10:15:30+0100", "2024-03-01T10:15:30.123", "2024-03-01T10:15:30", "2024-13-01T10:15:30Z"}) {
            assertThat(IsoInstant.parse(bad)).as(bad).isNull();
            assertThat(formatter(bad)).as(bad).isNull();
        }
    }

    @Provide
    Arbitrary<String> texts() {
        return Arbitraries.longs().map(seed -> text(new Random(seed)));
    }

    /** A text of the common form with its fields drawn past their ranges, then maybe one character changed. */
    private static String text(Random r) {
        StringBuilder b = new StringBuilder();
        b.append(pad(r.nextInt(10) == 0 ? r.nextInt(10000) : 1900 + r.nextInt(200), 4)).append('-')
                .append(pad(r.nextInt(14), 2)).append('-').append(pad(r.nextInt(33), 2)).append('T')
                .append(pad(r.nextInt(26), 2)).append(':').append(pad(r.nextInt(62), 2)).append(':').append(pad(r.nextInt(62), 2));
        if (r.nextBoolean()) {
            b.append('.');
            int digits = r.nextInt(11);
            for (int k = 0; k < digits; k++) {
                b.append((char) ('0' + r.nextInt(10)));
            }
        }
        switch (r.nextInt(4)) {
            case 0 -> b.append('Z');
            case 1 -> b.append(r.nextBoolean() ? '+' : '-').append(pad(r.nextInt(20), 2)).append(':').append(pad(r.nextInt(62), 2));
            case 2 -> b.append(r.nextBoolean() ? "+05" : "-0530");
            default -> { }
        }
        if (r.nextInt(4) == 0 && b.length() > 0) {
            String stray = "0123456789-:T.Z+ zt";
            b.setCharAt(r.nextInt(b.length()), stray.charAt(r.nextInt(stray.length())));
        }
        return b.toString();
    }

    private static String pad(int v, int width) {
        String s = Integer.toString(v);
        return "0".repeat(Math.max(0, width - s.length())) + s;
    }
}
