package io.dimstream.admin.dashboard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.admin.dashboard.LineChart.Line;
import io.dimstream.admin.dashboard.LineChart.Point;
import io.dimstream.admin.dashboard.LineChart.Series;
import io.dimstream.admin.dashboard.LineChart.Tick;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineChartTest {

    static final List<Instant> STARTS = List.of(Instant.parse("2026-01-01T11:00:00Z"), Instant.parse("2026-01-01T11:02:00Z"),
            Instant.parse("2026-01-01T11:04:00Z"));

    @Test
    void twoSeriesWithAGapLaidOutOnANiceAxis() {
        LineChart c = LineChart.of("Events by class", "events", STARTS,
                List.of(new Series("new", "series-new", Arrays.asList(0L, 5L, null)),
                        new Series("changed", "series-changed", List.of(2L, 3L, 4L))), false);
        // plot: x 44..352 (308 wide), y 128 (0) .. 8 (the axis maximum 5)
        assertThat(c).isEqualTo(new LineChart("Events by class", "events", List.of(
                new Line("new", "series-new", "M44 128 L198 8", List.of(
                        new Point("44", "128", "11:00 new: 0 events"),
                        new Point("198", "8", "11:02 new: 5 events"))),
                new Line("changed", "series-changed", "M44 80 L198 56 L352 32", List.of(
                        new Point("44", "80", "11:00 changed: 2 events"),
                        new Point("198", "56", "11:02 changed: 3 events"),
                        new Point("352", "32", "11:04 changed: 4 events")))),
                List.of(new Tick("44", "11:00"), new Tick("198", "11:02"), new Tick("352", "11:04")),
                List.of(new Tick("128", "0"), new Tick("68", "2.5"), new Tick("8", "5")), 5));
        assertThat(c.ariaLabel()).isEqualTo("Events by class (events) over time: new, changed; axis 0 to 5");
    }

    @Test
    void aMissingValueBreaksTheLineAndAllZerosKeepAnAxisOfOne() {
        LineChart c = LineChart.of("Sink lag", "records", STARTS, List.of(new Series("max lag", "series-lag",
                Arrays.asList(0L, null, 0L))), true);
        assertThat(c).isEqualTo(new LineChart("Sink lag", "records", List.of(
                new Line("max lag", "series-lag", "M44 128 M352 128", List.of(
                        new Point("44", "128", "01-01 11:00 max lag: 0 records"),
                        new Point("352", "128", "01-01 11:04 max lag: 0 records")))),
                List.of(new Tick("44", "01-01 11:00"), new Tick("198", "01-01 11:02"), new Tick("352", "01-01 11:04")),
                List.of(new Tick("128", "0"), new Tick("68", "0.5"), new Tick("8", "1")), 1));
    }

    @Test
    void niceCeilingsAndBadInput() {
        assertThat(List.of(0L, 1L, 2L, 3L, 7L, 10L, 11L, 99L, 101L, 4500L).stream().map(LineChart::niceCeiling).toList())
                .containsExactly(1.0, 1.0, 2.0, 5.0, 10.0, 10.0, 20.0, 100.0, 200.0, 5000.0);
        assertThatThrownBy(() -> LineChart.of("Lag", "records", STARTS, List.of(new Series("lag", "s", List.of(1L))), false))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("series lag of chart Lag has 1 values for 3 buckets");
    }
}
