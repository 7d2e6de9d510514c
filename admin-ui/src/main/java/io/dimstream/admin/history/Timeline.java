package io.dimstream.admin.history;

import io.dimstream.admin.history.HistoryView.Version;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The geometry of the history timeline, computed here and drawn by {@code history.jte} as one
 * server-rendered SVG (no script needed to read it): a version lane (the key's versions as
 * contiguous segments, x proportional to time inside the page's window), one lane per tracked
 * column (a segment per run of equal values) and an axis with ticks in UTC whose unit follows the
 * window's span. Hand-written rather than a charting library: the admin's CSP allows no inline
 * script, and server-side SVG keeps every state of the page a URL.
 *
 * <p>Versions narrower than {@link #NARROW} pixels in the window are merged, a run of two or more
 * at a time, into one group segment that counts them and links to a window around them.
 */
public final class Timeline {

    /** Left margin for the lane names. */
    static final int LEFT = 120;
    /** Width of the plot. */
    static final int PLOT = 840;
    /** Width of the whole SVG. */
    static final int WIDTH = LEFT + PLOT + 12;
    static final int LANE = 20;
    static final int GAP = 6;
    static final int AXIS = 22;
    /** A version segment narrower than this (px) is merged with its narrow neighbours. */
    static final double NARROW = 3.0;
    /** Average width of a label character (10 px sans-serif), for "does the label fit". */
    static final double CHAR = 6.2;
    /** At most this many axis ticks. */
    static final int MAX_TICKS = PLOT / 100;
    /** The smallest window a zoom-in leads to. */
    static final Duration MIN_SPAN = Duration.ofMinutes(1);

    /** The time window drawn: {@code [from, to)}. */
    public record Window(Instant from, Instant to) {
        public Window {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(to, "to");
            if (!to.isAfter(from)) {
                throw new IllegalArgumentException("the window's end " + to + " must be after its start " + from);
            }
        }

        public Duration span() {
            return Duration.between(from, to);
        }

        Instant centre() {
            return from.plus(span().dividedBy(2));
        }

        /** Half the span around the same centre; null when that is under {@link #MIN_SPAN}. */
        public Window zoomIn() {
            return zoomIn(centre());
        }

        /**
         * Half the span around {@code around}, moved to stay inside this window; null when that is
         * under {@link #MIN_SPAN}.
         */
        public Window zoomIn(Instant around) {
            Duration half = span().dividedBy(2);
            if (half.compareTo(MIN_SPAN) < 0) {
                return null;
            }
            Instant f = around.minus(half.dividedBy(2));
            f = f.isBefore(from) ? from : f.plus(half).isAfter(to) ? to.minus(half) : f;
            return of(f, f.plus(half));
        }

        /** Twice the span around the same centre. */
        public Window zoomOut() {
            Instant c = centre();
            return of(c.minus(span()), c.plus(span()));
        }

        /** Moved by half the span: back ({@code direction < 0}) or forward. */
        public Window pan(int direction) {
            Duration d = span().dividedBy(2);
            return direction < 0 ? of(from.minus(d), to.minus(d)) : of(from.plus(d), to.plus(d));
        }

        /** A window to whole seconds (tidy URLs), at least a second wide. */
        static Window of(Instant from, Instant to) {
            Instant f = from.truncatedTo(ChronoUnit.SECONDS);
            Instant t = to.truncatedTo(ChronoUnit.SECONDS);
            return new Window(f, t.isAfter(f) ? t : f.plusSeconds(1));
        }
    }

    /**
     * One drawn segment.
     *
     * @param first  the first version it covers (1-based)
     * @param last   the last version it covers
     * @param fromMs start of what it covers (epoch millis, clipped to the window), for the hover script
     * @param toMs   its end (epoch millis)
     * @param zoom   for a group of narrow versions, a window around them (its segment links there); else null
     */
    public record Segment(double x, double width, String cssClass, String label, String title, int first, int last,
                          long fromMs, long toMs, Window zoom) {
    }

    /** A lane: the versions, or one tracked column. */
    public record Lane(String name, double y, List<Segment> segments) {
    }

    /** An axis tick at {@code x}. */
    public record Tick(double x, String label) {
    }

    /**
     * What the template draws.
     *
     * @param narrow number of versions merged into groups because they were under {@link #NARROW} px
     */
    public record Drawing(int width, int height, int left, int plot, Window window, List<Tick> ticks, String tickUnit,
                          Lane versions, List<Lane> attributes, int narrow, int visible) {

        public double axisY() {
            return height - AXIS;
        }
    }

    private Timeline() {
    }

    /**
     * The window shown when the URL names none: the key's versions. It runs from the first
     * version's start to the end of the last one. A closed last version ends at its valid_to. An
     * open one is drawn to {@code now} while now is at most the key's history (at least a day)
     * after its start; when now is further on (data of long ago: the open version would take most of
     * the width and leave the changes in a sliver), and when now is before its start (data from the
     * future), it is drawn to a tenth of the history after its start (a day for a key of one version).
     */
    public static Window defaultWindow(List<Version> versions, Instant now) {
        Instant start = versions.get(0).validFrom();
        Version last = versions.get(versions.size() - 1);
        Instant end;
        if (last.validTo() != null) {
            end = last.validTo();
        } else if (nowIsNearTheData(versions, now)) {
            end = now;
        } else {
            end = last.validFrom().plus(openPad(versions));
        }
        return Window.of(start, end.isAfter(start) ? end : start.plusSeconds(1));
    }

    /**
     * Whether the default window of an open last version runs to {@code now}: now is after its
     * start by at most the key's history before it (at least a day), so the open version takes at
     * most half the width (see {@link #defaultWindow}).
     */
    public static boolean nowIsNearTheData(List<Version> versions, Instant now) {
        Instant lastStart = versions.get(versions.size() - 1).validFrom();
        Duration history = Duration.between(versions.get(0).validFrom(), lastStart);
        Duration near = history.compareTo(Duration.ofDays(1)) < 0 ? Duration.ofDays(1) : history;
        return now.isAfter(lastStart) && !now.isAfter(lastStart.plus(near));
    }

    /** How far after its start an open last version is drawn when not to now: a tenth of the history, a day for one version. */
    static Duration openPad(List<Version> versions) {
        Duration history = Duration.between(versions.get(0).validFrom(), versions.get(versions.size() - 1).validFrom());
        return history.isZero() ? Duration.ofDays(1) : history.dividedBy(10);
    }

    /**
     * Where zooming in centres: the middle start among {@code versions} (those in window {@code w},
     * a start before the window counted at its edge), so the zoomed window holds changes even when
     * a long version fills most of {@code w}; the window's centre when none is in it.
     */
    static Instant medianStart(List<Version> versions, Window w) {
        if (versions.isEmpty()) {
            return w.centre();
        }
        Instant start = versions.get(versions.size() / 2).validFrom();
        return start.isBefore(w.from()) ? w.from() : start;
    }

    /** The end of version {@code v} as drawn: its valid_to, or {@code now} while it is open. */
    static Instant end(Version v, Instant now) {
        if (v.validTo() != null) {
            return v.validTo();
        }
        return now.isAfter(v.validFrom()) ? now : v.validFrom();
    }

    /** The whole drawing of {@code versions} (in valid_from order) in window {@code w}. */
    public static Drawing draw(List<Version> versions, List<String> tracked, Window w, Instant now) {
        double y = 4;
        Lane lane = new Lane("versions", y, versionSegments(versions, w, now));
        int narrow = 0;
        int visible = 0;
        for (Segment s : lane.segments()) {
            visible += s.last() - s.first() + 1;
            if (s.zoom() != null) {
                narrow += s.last() - s.first() + 1;
            }
        }
        y += LANE + GAP * 2;
        List<Lane> lanes = new ArrayList<>();
        for (String c : tracked) {
            lanes.add(new Lane(c, y, runs(versions, c, w, now)));
            y += LANE + GAP;
        }
        TickPlan plan = tickPlan(w.span());
        int height = (int) y + AXIS;
        return new Drawing(WIDTH, height, LEFT, PLOT, w, ticks(w, plan), plan.unit(), lane, lanes, narrow, visible);
    }

    /** x of instant {@code t} in window {@code w}, clipped to the plot, to a tenth of a pixel. */
    static double x(Window w, Instant t) {
        double total = w.span().toMillis();
        double ms = Duration.between(w.from(), t).toMillis();
        double px = PLOT * Math.max(0, Math.min(total, ms)) / total;
        return round(LEFT + px);
    }

    static List<Segment> versionSegments(List<Version> versions, Window w, Instant now) {
        List<Segment> out = new ArrayList<>();
        List<Segment> narrowRun = new ArrayList<>();
        for (Version v : versions) {
            Instant end = end(v, now);
            if (!end.isAfter(w.from()) || !v.validFrom().isBefore(w.to())) {
                continue;
            }
            Instant from = max(v.validFrom(), w.from());
            Instant to = min(end, w.to());
            double x = x(w, from);
            double width = round(x(w, to) - x);
            String cls = "seg " + v.state() + (v.late() ? " late" : "") + (v.corrected() ? " corrected" : "");
            String label = "v" + v.number();
            String title = "v" + v.number() + " " + v.state() + (v.late() ? ", late-placed" : "") + v.correctionNote() + ": " + v.validFrom() + " .. "
                    + (v.validTo() == null ? "open" : v.validTo().toString());
            Segment s = new Segment(x, width, cls, fits(label, width) ? label : "", title, v.number(), v.number(),
                    from.toEpochMilli(), to.toEpochMilli(), null);
            if (width < NARROW) {
                narrowRun.add(s);
            } else {
                flush(narrowRun, out, w);
                out.add(s);
            }
        }
        flush(narrowRun, out, w);
        return out;
    }

    /** A run of narrow segments: one stays as it is (at least 1 px); two or more become one group. */
    private static void flush(List<Segment> run, List<Segment> out, Window w) {
        if (run.size() == 1) {
            Segment s = run.get(0);
            out.add(new Segment(s.x(), Math.max(1, s.width()), s.cssClass(), s.label(), s.title(), s.first(), s.last(),
                    s.fromMs(), s.toMs(), null));
        } else if (run.size() > 1) {
            Segment a = run.get(0);
            Segment b = run.get(run.size() - 1);
            int n = b.last() - a.first() + 1;
            double width = round(Math.max(1, b.x() + b.width() - a.x()));
            String label = "×" + n;
            Instant from = Instant.ofEpochMilli(a.fromMs());
            Instant to = Instant.ofEpochMilli(b.toMs());
            Duration pad = Duration.between(from, to).dividedBy(10);
            Window zoom = Window.of(from.minus(pad), to.plus(pad).plusSeconds(1));
            out.add(new Segment(a.x(), width, "seg group", fits(label, width) ? label : "",
                    "v" + a.first() + "–v" + b.last() + ": " + n + " versions narrower than " + (int) NARROW + " px here: zoom in",
                    a.first(), b.last(), a.fromMs(), b.toMs(), zoom));
        }
        run.clear();
    }

    /**
     * Runs of equal values of {@code column}: consecutive versions that are not deleted and hold the
     * same value form one segment; consecutive deleted versions form a "gone" segment.
     */
    static List<Segment> runs(List<Version> versions, String column, Window w, Instant now) {
        List<Segment> out = new ArrayList<>();
        int i = 0;
        int alt = 0;
        while (i < versions.size()) {
            Version first = versions.get(i);
            int j = i;
            while (j + 1 < versions.size() && sameRun(first, versions.get(j + 1), column)) {
                j++;
            }
            Version last = versions.get(j);
            Instant end = end(last, now);
            if (end.isAfter(w.from()) && first.validFrom().isBefore(w.to())) {
                Instant from = max(first.validFrom(), w.from());
                Instant to = min(end, w.to());
                double x = x(w, from);
                double width = Math.max(1, round(x(w, to) - x));
                String value = first.text(column);
                String range = first.validFrom() + " .. " + (last.validTo() == null ? "open" : last.validTo().toString())
                        + " (v" + first.number() + (j > i ? "–v" + last.number() : "") + ")";
                String cls;
                String label;
                String title;
                if (first.isDeleted()) {
                    cls = "run gone";
                    label = fit("deleted", width);
                    title = column + ": key deleted · " + range;
                } else {
                    cls = "run" + (value == null ? " null" : "") + (alt % 2 == 1 ? " alt" : "");
                    label = fit(value == null ? "NULL" : value, width);
                    title = column + " = " + (value == null ? "NULL" : value) + " · " + range;
                    alt++;
                }
                out.add(new Segment(x, width, cls, label, title, first.number(), last.number(), from.toEpochMilli(),
                        to.toEpochMilli(), null));
            } else if (!first.isDeleted()) {
                alt++;
            }
            i = j + 1;
        }
        return out;
    }

    private static boolean sameRun(Version a, Version b, String column) {
        if (a.isDeleted() || b.isDeleted()) {
            return a.isDeleted() && b.isDeleted();
        }
        return Objects.equals(a.text(column), b.text(column));
    }

    static boolean fits(String label, double width) {
        return label.length() * CHAR + 6 <= width;
    }

    /** The label cut to fit {@code width} with an ellipsis, or "" when not even 3 characters fit. */
    static String fit(String label, double width) {
        if (fits(label, width)) {
            return label;
        }
        int chars = (int) Math.floor((width - 6) / CHAR) - 1;
        return chars < 3 ? "" : label.substring(0, label.offsetByCodePoints(0, Math.min(chars, label.codePointCount(0, label.length())))) + "…";
    }

    // ---- axis ----

    /** A tick step: {@code count} of {@code unit}, its rough length, and how its labels read. */
    record TickPlan(String unit, int count, Duration approx, Function<LocalDateTime, String> label) {
    }

    private static final DateTimeFormatter HM = DateTimeFormatter.ofPattern("HH:mm");
    private static final DateTimeFormatter DHM = DateTimeFormatter.ofPattern("MM-dd HH:mm");
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyy-MM-dd");
    private static final DateTimeFormatter MONTH = DateTimeFormatter.ofPattern("yyyy-MM");
    private static final DateTimeFormatter YEAR = DateTimeFormatter.ofPattern("yyyy");

    /** The smallest step giving at most {@link #MAX_TICKS} ticks over {@code span}. */
    static TickPlan tickPlan(Duration span) {
        boolean withinDay = span.compareTo(Duration.ofDays(1)) <= 0;
        Function<LocalDateTime, String> clock = withinDay ? HM::format : DHM::format;
        List<TickPlan> plans = new ArrayList<>();
        for (int m : new int[] {1, 2, 5, 10, 15, 30}) {
            plans.add(new TickPlan("minutes", m, Duration.ofMinutes(m), clock));
        }
        for (int h : new int[] {1, 2, 3, 6, 12}) {
            plans.add(new TickPlan("hours", h, Duration.ofHours(h), clock));
        }
        for (int d : new int[] {1, 2, 7, 14}) {
            plans.add(new TickPlan("days", d, Duration.ofDays(d), DAY::format));
        }
        for (int mo : new int[] {1, 2, 3, 6}) {
            plans.add(new TickPlan("months", mo, Duration.ofDays(30L * mo), MONTH::format));
        }
        for (int y : new int[] {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}) {
            plans.add(new TickPlan("years", y, Duration.ofDays(365L * y), YEAR::format));
        }
        for (TickPlan p : plans) {
            if (span.toMillis() / (double) p.approx().toMillis() <= MAX_TICKS) {
                return p;
            }
        }
        return plans.get(plans.size() - 1);
    }

    /** Ticks at whole steps (UTC) inside the window. */
    static List<Tick> ticks(Window w, TickPlan p) {
        LocalDateTime from = LocalDateTime.ofInstant(w.from(), ZoneOffset.UTC);
        LocalDateTime t = switch (p.unit()) {
            case "minutes", "hours" -> from.toLocalDate().atStartOfDay();
            case "days" -> LocalDate.ofEpochDay(Math.floorDiv(from.toLocalDate().toEpochDay(), p.count()) * p.count()).atStartOfDay();
            case "months" -> from.toLocalDate().withDayOfYear(1).atStartOfDay();
            default -> LocalDate.of(Math.floorDiv(from.getYear(), p.count()) * p.count(), 1, 1).atStartOfDay();
        };
        List<Tick> out = new ArrayList<>();
        for (int guard = 0; guard < 10_000; guard++) {
            Instant at = t.toInstant(ZoneOffset.UTC);
            if (at.isAfter(w.to())) {
                break;
            }
            if (!at.isBefore(w.from())) {
                out.add(new Tick(x(w, at), p.label().apply(t)));
            }
            t = switch (p.unit()) {
                case "minutes" -> t.plusMinutes(p.count());
                case "hours" -> t.plusHours(p.count());
                case "days" -> t.plusDays(p.count());
                case "months" -> t.plusMonths(p.count());
                default -> t.plusYears(p.count());
            };
        }
        return out;
    }

    private static Instant max(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    private static Instant min(Instant a, Instant b) {
        return a.isBefore(b) ? a : b;
    }

    static double round(double d) {
        return Math.round(d * 10) / 10.0;
    }
}
