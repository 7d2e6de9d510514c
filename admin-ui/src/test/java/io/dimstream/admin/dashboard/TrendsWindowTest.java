package io.dimstream.admin.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.admin.dashboard.Trends.Choice;
import io.dimstream.db.status.EntityTrends.Window;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The dashboard's default window ({@link Trends#fit}): where the sink's batches are, and the words saying so. */
class TrendsWindowTest {

    static Instant t(String s) {
        return Instant.parse(s);
    }

    @Test
    void withoutBatchesTheLastDay() {
        assertThat(Trends.fit(null, null, t("2026-01-03T10:07:12Z"))).isEqualTo(new Choice(Window.H24, t("2026-01-03T10:15:00Z"),
                "Showing the last 24h: no batch of the sink is recorded (they are kept a day)."));
    }

    @Test
    void aBurstAMinuteAgoIsTheLastFifteenMinutesNotOnePixelOfADay() {
        // the demo: 3000 events applied in 20 s, looked at a minute later
        assertThat(Trends.fit(t("2026-01-03T10:05:00Z"), t("2026-01-03T10:05:20Z"), t("2026-01-03T10:06:20Z"))).isEqualTo(new Choice(
                Window.M15, t("2026-01-03T10:06:30Z"), "Showing the last 15m: the smallest window that holds the sink's batches, "
                        + "from 2026-01-03T10:05:00Z to 2026-01-03T10:05:20Z."));
    }

    @Test
    void fortyMinutesOfBatchesTakeTheHour() {
        assertThat(Trends.fit(t("2026-01-03T10:00:00Z"), t("2026-01-03T10:40:00Z"), t("2026-01-03T10:45:00Z"))).isEqualTo(new Choice(
                Window.H1, t("2026-01-03T10:46:00Z"), "Showing the last 1h: the smallest window that holds the sink's batches, "
                        + "from 2026-01-03T10:00:00Z to 2026-01-03T10:40:00Z."));
    }

    @Test
    void batchesOfLongAgoEndTheWindowATenthAfterTheLastNotNow() {
        // a sink stopped two days ago: the 15 minutes around its last batches, ending 1.5 min after the last
        assertThat(Trends.fit(t("2026-01-01T10:00:00Z"), t("2026-01-01T10:05:00Z"), t("2026-01-03T08:00:00Z"))).isEqualTo(new Choice(
                Window.M15, t("2026-01-01T10:07:00Z"), "Showing 15m ending at 2026-01-01T10:07:00Z, not now (2026-01-03T08:00:00Z): "
                        + "the latest batch of the sink is at 2026-01-01T10:05:00Z, and this is the smallest window that holds the "
                        + "sink's batches, from 2026-01-01T10:00:00Z to 2026-01-01T10:05:00Z."));
        // three hours of them: six hours, ending 36 min after the last
        assertThat(Trends.fit(t("2026-01-01T07:00:00Z"), t("2026-01-01T10:00:00Z"), t("2026-01-03T08:00:00Z")).end())
                .isEqualTo(t("2026-01-01T10:40:00Z"));
    }

    @Test
    void batchesOverMoreThanAWeekTakeTheWeekEndingAfterTheLast() {
        assertThat(Trends.fit(t("2026-01-01T00:00:00Z"), t("2026-01-10T00:00:00Z"), t("2026-01-10T00:30:00Z"))).isEqualTo(new Choice(
                Window.D7, t("2026-01-10T02:00:00Z"), "Showing the last 7d: the longest window; it holds the latest of the sink's "
                        + "batches, from 2026-01-01T00:00:00Z to 2026-01-10T00:00:00Z."));
    }
}
