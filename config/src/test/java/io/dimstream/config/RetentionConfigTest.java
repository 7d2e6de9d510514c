package io.dimstream.config;

import static io.dimstream.config.DimstreamConfigTest.designWith;
import static io.dimstream.config.DimstreamConfigTest.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.entity.IsoSpan;
import java.time.Duration;
import java.time.Period;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code history-retention}, {@code history-grain}, {@code history-grain-after}: read, defaulted, dumped, and each wrong kind refused naming the field. */
class RetentionConfigTest {

    private static final String HORIZON = "lateness-horizon: P30D";

    private static String with(String... lines) {
        return designWith(HORIZON, HORIZON + "\n    " + String.join("\n    ", lines));
    }

    private static DimstreamConfig parse(String yaml) {
        return DimstreamConfig.parse(yaml, "config test.yml", DimstreamConfigTest.ENV);
    }

    @Test
    void noRetentionKeysKeepEverything() {
        DimstreamConfig c = parse(DimstreamConfigTest.DESIGN_EXAMPLE);

        assertThat(c.entity("customer").retention()).isEqualTo(HistoryRetention.NONE);
        assertThat(c.entity("customer").toEntitySpec().retention()).isEqualTo(HistoryRetention.NONE);
        assertThat(c.describeMasked()).doesNotContain("history-");
    }

    @Test
    void everyKeyIsReadIntoTheSpecAndShownByTheMaskedDump() {
        DimstreamConfig c = parse(with("history-retention: P2Y", "history-grain: P1D", "history-grain-after: P90D"));

        HistoryRetention expected = new HistoryRetention(Optional.of(new IsoSpan(Period.ofYears(2), Duration.ZERO)),
                Optional.of(Duration.ofDays(1)), Optional.of(new IsoSpan(Period.ofDays(90), Duration.ZERO)));
        assertThat(c.entity("customer").retention()).isEqualTo(expected);
        assertThat(c.entity("customer").toEntitySpec().retention()).isEqualTo(expected);
        assertThat(c.describeMasked()).contains("""
                    history-retention: P2Y
                    history-grain: P1D
                    history-grain-after: P90D
                """);
    }

    @Test
    void spansWithTimePartsAndHourGrainsAreRead() {
        DimstreamConfig c = parse(with("history-retention: P1Y2M3DT4H", "history-grain: PT6H", "history-grain-after: PT36H"));

        assertThat(c.entity("customer").retention()).isEqualTo(new HistoryRetention(
                Optional.of(new IsoSpan(Period.of(1, 2, 3), Duration.ofHours(4))), Optional.of(Duration.ofHours(6)),
                Optional.of(new IsoSpan(Period.ZERO, Duration.ofHours(36)))));
        assertThat(c.entity("customer").retention().retention().orElseThrow()).hasToString("P1Y2M3DT4H");
    }

    @Test
    void aRetentionThatIsNoDurationIsRefused() {
        assertThat(refusal(with("history-retention: two years")))
                .isEqualTo("config test.yml: entities[0].history-retention: \"two years\" is not an ISO-8601 duration (e.g. P2Y, P30D, PT12H)");
    }

    @Test
    void aRetentionOfZeroIsRefused() {
        assertThat(refusal(with("history-retention: P0D")))
                .isEqualTo("config test.yml: entities[0].history-retention: \"P0D\" is not a positive duration");
    }

    @Test
    void aGrainOfMonthsIsRefused() {
        assertThat(refusal(with("history-grain: P1M", "history-grain-after: P1Y")))
                .isEqualTo("config test.yml: entities[0].history-grain: \"P1M\" has years or months, whose length varies: give a "
                        + "fixed-length grain (days, hours, minutes), e.g. P1D or P7D");
    }

    @Test
    void aGrainWithoutItsHorizonIsRefused() {
        assertThat(refusal(with("history-grain: P1D")))
                .isEqualTo("config test.yml: entities[0].history-grain-after: required with history-grain (the age beyond which "
                        + "versions are kept at grain P1D), e.g. P90D");
    }

    @Test
    void aGrainHorizonWithoutAGrainIsRefused() {
        assertThat(refusal(with("history-grain-after: P90D")))
                .isEqualTo("config test.yml: entities[0].history-grain-after: only with history-grain (the grain versions older than "
                        + "P90D are kept at), e.g. history-grain: P1D");
    }

    @Test
    void aGrainHorizonNotShorterThanTheRetentionAtEveryDateIsRefused() {
        String message = "config test.yml: entities[0].history-grain-after: %s must be shorter than history-retention %s (at any date: "
                + "a year counts 365 to 366 days, a month 28 to 31), or versions would be deleted before they are thinned";
        assertThat(refusal(with("history-retention: P1Y", "history-grain: P1D", "history-grain-after: P2Y")))
                .isEqualTo(message.formatted("P2Y", "P1Y"));
        // twelve months can be longer than a year (31-day months): refused too
        assertThat(refusal(with("history-retention: P1Y", "history-grain: P1D", "history-grain-after: P12M")))
                .isEqualTo(message.formatted("P12M", "P1Y"));
        assertThat(parse(with("history-retention: P1Y", "history-grain: P1D", "history-grain-after: P11M")).entity("customer")
                .retention().grainAfter()).contains(new IsoSpan(Period.ofMonths(11), Duration.ZERO));
    }

    @Test
    void everyProblemOfTheKeysIsListedAtOnce() {
        assertThat(refusal(with("history-retention: P2X", "history-grain: P1Y", "history-grain-after: soon"))).isEqualTo(String.join("; ",
                "config test.yml: 3 problems: entities[0].history-retention: \"P2X\" is not an ISO-8601 duration (e.g. P2Y, P30D, PT12H)",
                "entities[0].history-grain: \"P1Y\" has years or months, whose length varies: give a fixed-length grain (days, hours, "
                        + "minutes), e.g. P1D or P7D",
                "entities[0].history-grain-after: \"soon\" is not an ISO-8601 duration (e.g. P2Y, P30D, PT12H)"));
    }
}
