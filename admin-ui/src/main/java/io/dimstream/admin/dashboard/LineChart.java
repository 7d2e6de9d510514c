package io.dimstream.admin.dashboard;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The geometry of one small line chart drawn as server-side SVG (dashboard.jte): points, paths,
 * axis ticks, in SVG user units. Hand-written rather than a charting library because the page
 * allows no script (CSP {@code script-src 'self'}, no inline script or style): the template only
 * writes these numbers into {@code <path>} and {@code <circle>} elements, coloured by CSS class.
 *
 * <p>x: the bucket starts evenly spaced over the plot's width; y: 0 at the bottom, the axis
 * maximum a "nice" number (1, 2 or 5 times a power of ten) at or above the largest value. A null
 * value (nothing measured in that bucket) breaks the line and has no point.
 */
public record LineChart(String title, String unit, List<Line> lines, List<Tick> xTicks, List<Tick> yTicks, double yMax) {

    public static final int WIDTH = 360;
    public static final int HEIGHT = 150;
    public static final int LEFT = 44;
    public static final int RIGHT = 8;
    public static final int TOP = 8;
    public static final int BOTTOM = 22;

    public static final int PLOT_RIGHT = WIDTH - RIGHT;
    public static final int PLOT_BOTTOM = HEIGHT - BOTTOM;

    private static final DateTimeFormatter HM = DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter DHM = DateTimeFormatter.ofPattern("MM-dd HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);

    /** One series to draw: {@code cssClass} colours it (admin.css, {@code .series-*}). */
    public record Series(String name, String cssClass, List<Long> values) {
        public Series {
            values = java.util.Collections.unmodifiableList(new ArrayList<>(values));
        }
    }

    /** A point with its tooltip ({@code <title>}). */
    public record Point(String x, String y, String title) {
    }

    /** A drawn series: its path ({@code M x y L x y ...}, a new M after a gap) and its points. */
    public record Line(String name, String cssClass, String path, List<Point> points) {
        public Line {
            points = List.copyOf(points);
        }
    }

    /** An axis tick: its position (x for the time axis, y for the value axis) and label. */
    public record Tick(String pos, String label) {
    }

    public LineChart {
        lines = List.copyOf(lines);
        xTicks = List.copyOf(xTicks);
        yTicks = List.copyOf(yTicks);
    }

    /** The text for {@code aria-label}: what the chart shows and its range. */
    public String ariaLabel() {
        StringBuilder sb = new StringBuilder(title).append(" (").append(unit).append(") over time: ");
        for (int i = 0; i < lines.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(lines.get(i).name());
        }
        return sb.append("; axis 0 to ").append(fmt(yMax)).toString();
    }

    /**
     * Lays out {@code series} over buckets starting at {@code starts} (all of the same length).
     * {@code dates}: label the time axis with month and day too (windows longer than a day).
     */
    public static LineChart of(String title, String unit, List<Instant> starts, List<Series> series, boolean dates) {
        Objects.requireNonNull(starts, "starts");
        int n = starts.size();
        for (Series s : series) {
            if (s.values().size() != n) {
                throw new IllegalArgumentException("series " + s.name() + " of chart " + title + " has " + s.values().size()
                        + " values for " + n + " buckets");
            }
        }
        long max = 0;
        for (Series s : series) {
            for (Long v : s.values()) {
                if (v != null && v > max) {
                    max = v;
                }
            }
        }
        double yMax = niceCeiling(max);
        DateTimeFormatter f = dates ? DHM : HM;
        List<Line> lines = new ArrayList<>();
        for (Series s : series) {
            StringBuilder path = new StringBuilder();
            List<Point> points = new ArrayList<>();
            boolean pen = false;
            for (int i = 0; i < n; i++) {
                Long v = s.values().get(i);
                if (v == null) {
                    pen = false;
                    continue;
                }
                String x = fmt(x(i, n));
                String y = fmt(y(v, yMax));
                path.append(path.length() == 0 ? "" : " ").append(pen ? "L" : "M").append(x).append(' ').append(y);
                pen = true;
                points.add(new Point(x, y, f.format(starts.get(i)) + " " + s.name() + ": " + v + " " + unit));
            }
            lines.add(new Line(s.name(), s.cssClass(), path.toString(), points));
        }
        List<Tick> xTicks = new ArrayList<>();
        if (n > 0) {
            for (int i : n == 1 ? new int[] {0} : new int[] {0, (n - 1) / 2, n - 1}) {
                xTicks.add(new Tick(fmt(x(i, n)), f.format(starts.get(i))));
            }
        }
        List<Tick> yTicks = List.of(new Tick(fmt(y(0, yMax)), "0"), new Tick(fmt(y(yMax / 2, yMax)), fmt(yMax / 2)),
                new Tick(fmt(y(yMax, yMax)), fmt(yMax)));
        return new LineChart(title, unit, lines, xTicks, yTicks, yMax);
    }

    /** 1, 2 or 5 times a power of ten, at or above {@code max}; 1 for 0. */
    static double niceCeiling(long max) {
        if (max <= 1) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(max)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= max) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static double x(int i, int n) {
        double w = PLOT_RIGHT - LEFT;
        return n <= 1 ? LEFT + w / 2 : LEFT + w * i / (n - 1);
    }

    private static double y(double v, double yMax) {
        return PLOT_BOTTOM - (PLOT_BOTTOM - TOP) * v / yMax;
    }

    /** At most one decimal, none when whole: "12", "12.5". */
    static String fmt(double d) {
        double r = Math.round(d * 10) / 10.0;
        return r == Math.rint(r) ? Long.toString((long) r) : Double.toString(r);
    }
}
