package io.dimstream.admin.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.admin.history.HistoryView.Lineage;
import io.dimstream.admin.history.HistoryView.Version;
import io.dimstream.admin.history.Timeline.Segment;
import io.dimstream.admin.history.Timeline.Tick;
import io.dimstream.admin.history.Timeline.Window;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The timeline's geometry: whole expected segment lists (x, width, class, label, title) for small
 * histories, worked out by hand. The plot starts at x = 120 and is 840 px wide.
 */
class TimelineTest {

    static Instant t(String s) {
        return Instant.parse(s);
    }

    static long ms(String s) {
        return t(s).toEpochMilli();
    }

    static Version v(int n, String from, String to, boolean deleted, boolean late, String email, String city) {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("id", "K");
        values.put("email", email);
        values.put("city", city);
        return new Version(n, t(from), to == null ? null : t(to), to == null && !deleted, deleted, late, n, "h" + n, values,
                List.of(), new Lineage("t", 0, (long) n, t(from)));
    }

    /** Four versions over 120 days, v2 late-placed, v3 a deletion, v4 open; now = 2025-05-01. */
    static final List<Version> SMALL = List.of(
            v(1, "2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z", false, false, "a@x.io", "Paris"),
            v(2, "2025-02-01T00:00:00Z", "2025-03-01T00:00:00Z", false, true, "a@x.io", "Lyon"),
            v(3, "2025-03-01T00:00:00Z", "2025-04-01T00:00:00Z", true, false, "a@x.io", "Lyon"),
            v(4, "2025-04-01T00:00:00Z", null, false, false, "b@x.io", "Lyon"));
    static final Instant NOW = t("2025-05-01T00:00:00Z");

    @Test
    void theDefaultWindowRunsFromTheFirstVersionToNowWhileTheLastIsOpen() {
        assertThat(Timeline.defaultWindow(SMALL, NOW)).isEqualTo(new Window(t("2025-01-01T00:00:00Z"), NOW));
        // now before the open version's start (data from the future): a tenth of the history, at least a day
        assertThat(Timeline.defaultWindow(SMALL, t("2024-01-01T00:00:00Z")))
                .isEqualTo(new Window(t("2025-01-01T00:00:00Z"), t("2025-04-10T00:00:00Z")));
        List<Version> closed = List.of(SMALL.get(0));
        assertThat(Timeline.defaultWindow(closed, NOW)).isEqualTo(new Window(t("2025-01-01T00:00:00Z"), t("2025-02-01T00:00:00Z")));
    }

    @Test
    void theDefaultWindowOfDataLongAgoEndsATenthOfTheHistoryAfterTheLastChangeNotNow() {
        // SMALL's changes span 90 days; now 16 months after the last: the open v4 would take 95% of the width
        Instant later = t("2026-08-01T00:00:00Z");
        assertThat(Timeline.defaultWindow(SMALL, later)).isEqualTo(new Window(t("2025-01-01T00:00:00Z"), t("2025-04-10T00:00:00Z")));
        assertThat(Timeline.nowIsNearTheData(SMALL, later)).isFalse();
        // now 90 days after the last change (the history's length): still to now, v4 half the width
        assertThat(Timeline.defaultWindow(SMALL, t("2025-06-30T00:00:00Z")))
                .isEqualTo(new Window(t("2025-01-01T00:00:00Z"), t("2025-06-30T00:00:00Z")));
        // one version, long ago: a day of it
        List<Version> one = List.of(v(1, "2025-01-01T00:00:00Z", null, false, false, "a", "x"));
        assertThat(Timeline.defaultWindow(one, later)).isEqualTo(new Window(t("2025-01-01T00:00:00Z"), t("2025-01-02T00:00:00Z")));
        // one version a few hours ago: to now
        assertThat(Timeline.defaultWindow(one, t("2025-01-01T05:00:00Z")))
                .isEqualTo(new Window(t("2025-01-01T00:00:00Z"), t("2025-01-01T05:00:00Z")));
    }

    @Test
    void zoomingInCentresOnTheMiddleVersionStartInsideTheWindow() {
        // v1..v3 start in January-March, the window runs to 2026: zoom in around v3's start (the middle of four), not mid-2025
        Window w = new Window(t("2025-01-01T00:00:00Z"), t("2026-01-01T00:00:00Z"));
        assertThat(Timeline.medianStart(SMALL, w)).isEqualTo(t("2025-03-01T00:00:00Z"));
        assertThat(w.zoomIn(Timeline.medianStart(SMALL, w)))
                .isEqualTo(new Window(t("2025-01-01T00:00:00Z"), t("2025-07-02T12:00:00Z"))); // moved back inside the window
        assertThat(w.zoomIn(t("2025-09-01T00:00:00Z"))).isEqualTo(new Window(t("2025-06-01T18:00:00Z"), t("2025-12-01T06:00:00Z")));
        assertThat(w.zoomIn(t("2025-12-31T00:00:00Z"))).isEqualTo(new Window(t("2025-07-02T12:00:00Z"), t("2026-01-01T00:00:00Z")));
        // no version in the window: its centre
        assertThat(Timeline.medianStart(List.of(), w)).isEqualTo(t("2025-07-02T12:00:00Z"));
    }

    @Test
    void versionsAreContiguousSegmentsInOneLaneProportionalToTime() {
        Window w = Timeline.defaultWindow(SMALL, NOW); // 120 days over 840 px: 7 px a day
        assertThat(Timeline.versionSegments(SMALL, w, NOW)).containsExactly(
                new Segment(120.0, 217.0, "seg closed", "v1", "v1 closed: 2025-01-01T00:00:00Z .. 2025-02-01T00:00:00Z", 1, 1,
                        ms("2025-01-01T00:00:00Z"), ms("2025-02-01T00:00:00Z"), null),
                new Segment(337.0, 196.0, "seg closed late", "v2", "v2 closed, late-placed: 2025-02-01T00:00:00Z .. 2025-03-01T00:00:00Z",
                        2, 2, ms("2025-02-01T00:00:00Z"), ms("2025-03-01T00:00:00Z"), null),
                new Segment(533.0, 217.0, "seg deleted", "v3", "v3 deleted: 2025-03-01T00:00:00Z .. 2025-04-01T00:00:00Z", 3, 3,
                        ms("2025-03-01T00:00:00Z"), ms("2025-04-01T00:00:00Z"), null),
                new Segment(750.0, 210.0, "seg current", "v4", "v4 current: 2025-04-01T00:00:00Z .. open", 4, 4,
                        ms("2025-04-01T00:00:00Z"), ms("2025-05-01T00:00:00Z"), null));
    }

    @Test
    void aZoomedWindowClipsTheSegmentsAtItsEdgesAndLeavesOutThoseOutside() {
        Window w = new Window(t("2025-02-15T00:00:00Z"), t("2025-03-15T00:00:00Z")); // 28 days: 30 px a day
        assertThat(Timeline.versionSegments(SMALL, w, NOW)).containsExactly(
                new Segment(120.0, 420.0, "seg closed late", "v2", "v2 closed, late-placed: 2025-02-01T00:00:00Z .. 2025-03-01T00:00:00Z",
                        2, 2, ms("2025-02-15T00:00:00Z"), ms("2025-03-01T00:00:00Z"), null),
                new Segment(540.0, 420.0, "seg deleted", "v3", "v3 deleted: 2025-03-01T00:00:00Z .. 2025-04-01T00:00:00Z", 3, 3,
                        ms("2025-03-01T00:00:00Z"), ms("2025-03-15T00:00:00Z"), null));
    }

    @Test
    void attributeLanesHaveOneSegmentPerRunOfEqualValuesAndDeletedPeriodsApart() {
        Window w = Timeline.defaultWindow(SMALL, NOW);
        assertThat(Timeline.runs(SMALL, "email", w, NOW)).containsExactly(
                new Segment(120.0, 413.0, "run", "a@x.io", "email = a@x.io · 2025-01-01T00:00:00Z .. 2025-03-01T00:00:00Z (v1–v2)", 1, 2,
                        ms("2025-01-01T00:00:00Z"), ms("2025-03-01T00:00:00Z"), null),
                new Segment(533.0, 217.0, "run gone", "deleted", "email: key deleted · 2025-03-01T00:00:00Z .. 2025-04-01T00:00:00Z (v3)",
                        3, 3, ms("2025-03-01T00:00:00Z"), ms("2025-04-01T00:00:00Z"), null),
                new Segment(750.0, 210.0, "run alt", "b@x.io", "email = b@x.io · 2025-04-01T00:00:00Z .. open (v4)", 4, 4,
                        ms("2025-04-01T00:00:00Z"), ms("2025-05-01T00:00:00Z"), null));
        assertThat(Timeline.runs(SMALL, "city", w, NOW)).containsExactly(
                new Segment(120.0, 217.0, "run", "Paris", "city = Paris · 2025-01-01T00:00:00Z .. 2025-02-01T00:00:00Z (v1)", 1, 1,
                        ms("2025-01-01T00:00:00Z"), ms("2025-02-01T00:00:00Z"), null),
                new Segment(337.0, 196.0, "run alt", "Lyon", "city = Lyon · 2025-02-01T00:00:00Z .. 2025-03-01T00:00:00Z (v2)", 2, 2,
                        ms("2025-02-01T00:00:00Z"), ms("2025-03-01T00:00:00Z"), null),
                new Segment(533.0, 217.0, "run gone", "deleted", "city: key deleted · 2025-03-01T00:00:00Z .. 2025-04-01T00:00:00Z (v3)",
                        3, 3, ms("2025-03-01T00:00:00Z"), ms("2025-04-01T00:00:00Z"), null),
                new Segment(750.0, 210.0, "run", "Lyon", "city = Lyon · 2025-04-01T00:00:00Z .. open (v4)", 4, 4,
                        ms("2025-04-01T00:00:00Z"), ms("2025-05-01T00:00:00Z"), null));
    }

    @Test
    void aValueTooLongForItsRunIsCutWithAnEllipsisAndNullIsNamed() {
        // 6.2 px a character plus 6 px of padding
        assertThat(Timeline.fit("abcdefghij", 68.0)).isEqualTo("abcdefghij");
        assertThat(Timeline.fit("abcdefghij", 50.0)).isEqualTo("abcdef…");
        assertThat(Timeline.fit("abcdefghij", 31.0)).isEqualTo("abc…"); // four characters: 30.8 px
        assertThat(Timeline.fit("abcdefghij", 30.0)).isEqualTo("");
        List<Version> nulls = List.of(v(1, "2025-01-01T00:00:00Z", null, false, false, "a@x.io", null));
        Window w = new Window(t("2025-01-01T00:00:00Z"), t("2025-01-02T00:00:00Z"));
        assertThat(Timeline.runs(nulls, "city", w, NOW)).containsExactly(
                new Segment(120.0, 840.0, "run null", "NULL", "city = NULL · 2025-01-01T00:00:00Z .. open (v1)", 1, 1,
                        ms("2025-01-01T00:00:00Z"), ms("2025-01-02T00:00:00Z"), null));
    }

    @Test
    void versionsNarrowerThanThreePixelsAreMergedIntoOneGroupThatLinksToAWindowAroundThem() {
        // v1: 300 days; v2..v21: an hour each; v22 open; now 360 days after the start: 2.333 px a day
        List<Version> vs = new ArrayList<>();
        vs.add(v(1, "2025-01-01T00:00:00Z", "2025-10-28T00:00:00Z", false, false, "a", "x"));
        Instant h = t("2025-10-28T00:00:00Z");
        for (int i = 0; i < 20; i++) {
            vs.add(v(2 + i, h.plus(Duration.ofHours(i)).toString(), h.plus(Duration.ofHours(i + 1)).toString(), false, false, "e" + i, "x"));
        }
        vs.add(v(22, "2025-10-28T20:00:00Z", null, false, false, "z", "x"));
        Instant now = t("2025-12-27T00:00:00Z");
        Timeline.Drawing d = Timeline.draw(vs, List.of("email"), Timeline.defaultWindow(vs, now), now);
        assertThat(d.versions().segments()).containsExactly(
                new Segment(120.0, 700.0, "seg closed", "v1", "v1 closed: 2025-01-01T00:00:00Z .. 2025-10-28T00:00:00Z", 1, 1,
                        ms("2025-01-01T00:00:00Z"), ms("2025-10-28T00:00:00Z"), null),
                // 820.0 to 821.9: 20 hours are 1.9 px
                new Segment(820.0, 1.9, "seg group", "", "v2–v21: 20 versions narrower than 3 px here: zoom in", 2, 21,
                        ms("2025-10-28T00:00:00Z"), ms("2025-10-28T20:00:00Z"),
                        new Window(t("2025-10-27T22:00:00Z"), t("2025-10-28T22:00:01Z"))),
                new Segment(821.9, 138.1, "seg current", "v22", "v22 current: 2025-10-28T20:00:00Z .. open", 22, 22,
                        ms("2025-10-28T20:00:00Z"), ms("2025-12-27T00:00:00Z"), null));
        assertThat(List.of(d.narrow(), d.visible())).containsExactly(20, 22);
    }

    @Test
    void theTickUnitFollowsTheSpanWithAtMostEightTicks() {
        record Plan(String unit, int count, String sample) {
        }
        java.time.LocalDateTime at = java.time.LocalDateTime.parse("2025-03-04T05:06:00");
        List<Plan> actual = new ArrayList<>();
        for (Duration span : List.of(Duration.ofMinutes(10), Duration.ofHours(3), Duration.ofDays(1), Duration.ofDays(2),
                Duration.ofDays(30), Duration.ofDays(120), Duration.ofDays(3 * 365), Duration.ofDays(30 * 365))) {
            Timeline.TickPlan p = Timeline.tickPlan(span);
            actual.add(new Plan(p.unit(), p.count(), p.label().apply(at)));
        }
        assertThat(actual).containsExactly(
                new Plan("minutes", 2, "05:06"),
                new Plan("minutes", 30, "05:06"),
                new Plan("hours", 3, "05:06"),
                new Plan("hours", 6, "03-04 05:06"),
                new Plan("days", 7, "2025-03-04"),
                new Plan("months", 1, "2025-03"),
                new Plan("months", 6, "2025-03"),
                new Plan("years", 5, "2025"));
    }

    @Test
    void ticksSitOnWholeUnitsInsideTheWindow() {
        Window w = Timeline.defaultWindow(SMALL, NOW);
        assertThat(Timeline.ticks(w, Timeline.tickPlan(w.span()))).containsExactly(
                new Tick(120.0, "2025-01"), new Tick(337.0, "2025-02"), new Tick(533.0, "2025-03"), new Tick(750.0, "2025-04"),
                new Tick(960.0, "2025-05"));
        // 10:20 to 10:36, 16 minutes: every 2 minutes, from the first whole one
        Window m = new Window(t("2025-01-01T10:20:30Z"), t("2025-01-01T10:36:30Z"));
        assertThat(Timeline.ticks(m, Timeline.tickPlan(m.span())).stream().map(Tick::label).toList())
                .containsExactly("10:22", "10:24", "10:26", "10:28", "10:30", "10:32", "10:34", "10:36");
        assertThat(Timeline.ticks(m, Timeline.tickPlan(m.span())).get(0)).isEqualTo(new Tick(198.8, "10:22")); // 90 s of 960 s: 78.75 px
    }

    @Test
    void zoomAndPanKeepTheCentreOrMoveByHalfTheSpan() {
        Window w = new Window(t("2025-01-01T00:00:00Z"), t("2025-05-01T00:00:00Z"));
        assertThat(List.of(w.zoomIn(), w.zoomOut(), w.pan(-1), w.pan(1))).containsExactly(
                new Window(t("2025-01-31T00:00:00Z"), t("2025-04-01T00:00:00Z")),
                new Window(t("2024-11-02T00:00:00Z"), t("2025-06-30T00:00:00Z")),
                new Window(t("2024-11-02T00:00:00Z"), t("2025-03-02T00:00:00Z")),
                new Window(t("2025-03-02T00:00:00Z"), t("2025-06-30T00:00:00Z")));
        assertThat(new Window(t("2025-01-01T00:00:00Z"), t("2025-01-01T00:01:59Z")).zoomIn()).isNull();
        assertThatThrownBy(() -> new Window(t("2025-01-02T00:00:00Z"), t("2025-01-01T00:00:00Z")))
                .hasMessage("the window's end 2025-01-01T00:00:00Z must be after its start 2025-01-02T00:00:00Z");
    }
}
