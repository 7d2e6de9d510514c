package io.dimstream.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The soak's series written out and judged ({@link SoakBenchmark}): a TSV, an SVG with one panel
 * per series (hand-written, as {@link Growth#svg}), and the flatness verdict.
 *
 * <p><b>Flat</b>: over the second half of the run (the first half holds the warm-up: heap and
 * page cache filling, the event memory growing to its lateness horizon), the least-squares slope
 * of the series times the half's length, i.e. what it grew by over that half, is at most
 * {@value #TOLERANCE_PERCENT}% of the half's mean, or at most the series' absolute slack (a few
 * files, threads or connections, or 2 seconds of events for a lag, where a mean near 0 makes a
 * percentage meaningless). A series that grows more than that is reported as GROWS.
 */
final class SoakReport {
    static final int TOLERANCE_PERCENT = 10;

    /** The judged series: column index, title, unit, absolute slack (in the series' unit; rate-dependent for the lags). */
    record Series(int column, String title, double slack) {
    }

    private SoakReport() {
    }

    static List<Series> judged(int rate) {
        // the heap by its live set (column 12, after a full collection every 5 minutes); the window
        // minimum of the heap in use (column 2) stays in the TSV, not judged: it moves with when G1
        // collects old garbage (SoakSampler)
        return List.of(new Series(1, "service RSS (MiB)", 0), new Series(12, "heap live set (MiB)", 0),
                new Series(3, "live threads", 3), new Series(4, "open files", 5), new Series(5, "PostgreSQL connections (service)", 1),
                new Series(6, "PostgreSQL connections (admin)", 1), new Series(7, "source lag (events)", 2.0 * rate),
                new Series(8, "changes lag (records)", 2.0 * rate), new Series(9, "p99 produce-to-commit (ms)", 500),
                new Series(11, "admin RSS (MiB)", 0));
    }

    static String line(double[] row) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < row.length; i++) {
            b.append(i == 0 ? "" : "  ").append(SoakSampler.COLUMNS.get(i)).append('=')
                    .append(String.format(Locale.ROOT, row[i] == Math.rint(row[i]) ? "%.0f" : "%.1f", row[i]));
        }
        return b.toString();
    }

    static void writeTsv(Path file, List<double[]> rows) throws IOException {
        StringBuilder b = new StringBuilder(String.join("\t", SoakSampler.COLUMNS)).append('\n');
        for (double[] r : rows) {
            List<String> cells = new ArrayList<>();
            for (double v : r) {
                cells.add(String.format(Locale.ROOT, v == Math.rint(v) ? "%.0f" : "%.1f", v));
            }
            b.append(String.join("\t", cells)).append('\n');
        }
        Files.writeString(file, b.toString());
    }

    /** Prints one verdict line per series; true when every series is flat. */
    static boolean verdict(List<double[]> rows, int rate) {
        boolean allFlat = true;
        List<double[]> half = rows.subList(rows.size() / 2, rows.size());
        System.out.printf(Locale.ROOT, "flatness over the second half (%d samples, %.0f s to %.0f s): growth = least-squares slope x "
                + "the half's length; flat when growth <= %d%% of the mean or <= the slack%n", half.size(),
                half.isEmpty() ? 0 : half.get(0)[0], half.isEmpty() ? 0 : half.get(half.size() - 1)[0], TOLERANCE_PERCENT);
        for (Series s : judged(rate)) {
            double[] fit = fit(half, s.column());
            double growth = fit[0] * fit[2];
            boolean flat = half.size() >= 3 && (growth <= TOLERANCE_PERCENT / 100.0 * Math.abs(fit[1]) || growth <= s.slack());
            allFlat &= flat;
            System.out.printf(Locale.ROOT, "  %-36s mean %12.1f  growth %+12.1f (%+6.1f%% of the mean, slack %.0f)  %s%n", s.title(),
                    fit[1], growth, fit[1] == 0 ? 0 : 100 * growth / Math.abs(fit[1]), s.slack(), flat ? "FLAT" : "GROWS");
        }
        return allFlat;
    }

    /** {slope per second, mean, span in seconds} of column c over the rows (samples of -1, unknown, left out). */
    static double[] fit(List<double[]> rows, int c) {
        List<double[]> xy = new ArrayList<>();
        for (double[] r : rows) {
            if (r[c] >= 0) {
                xy.add(new double[] {r[0], r[c]});
            }
        }
        if (xy.size() < 2) {
            return new double[] {0, xy.isEmpty() ? 0 : xy.get(0)[1], 0};
        }
        double mx = xy.stream().mapToDouble(p -> p[0]).average().orElse(0);
        double my = xy.stream().mapToDouble(p -> p[1]).average().orElse(0);
        double sxy = 0;
        double sxx = 0;
        for (double[] p : xy) {
            sxy += (p[0] - mx) * (p[1] - my);
            sxx += (p[0] - mx) * (p[0] - mx);
        }
        return new double[] {sxx == 0 ? 0 : sxy / sxx, my, xy.get(xy.size() - 1)[0] - xy.get(0)[0]};
    }

    /** One panel per judged series, stacked, sharing the time axis (minutes). */
    static String svg(List<double[]> rows, int rate, String title) {
        List<Series> series = judged(rate);
        int w = 760;
        int panelH = 110;
        int left = 80;
        int right = 20;
        int top = 40;
        int gap = 30;
        int h = top + series.size() * (panelH + gap) + 30;
        double pw = w - left - right;
        double maxT = Math.max(1, rows.isEmpty() ? 1 : rows.get(rows.size() - 1)[0]) / 60.0;
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"sans-serif\" font-size=\"11\">%n", w, h, w, h));
        s.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", w, h));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"14\">%s</text>%n", left, escape(title)));
        for (int i = 0; i < series.size(); i++) {
            int y0 = top + i * (panelH + gap) + 14;
            panel(s, rows, series.get(i), left, y0, pw, panelH, maxT);
        }
        s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">minutes since the sampling began</text>%n",
                left + pw / 2, h - 8));
        return s.append("</svg>\n").toString();
    }

    private static void panel(StringBuilder s, List<double[]> rows, Series se, int left, int y0, double pw, int ph, double maxT) {
        double maxY = 0;
        for (double[] r : rows) {
            maxY = Math.max(maxY, r[se.column()]);
        }
        maxY = maxY <= 0 ? 1 : maxY * 1.1;
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s</text>%n", left, y0 - 4, escape(se.title())));
        s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"none\" stroke=\"#bbbbbb\"/>%n",
                left, y0, pw, ph));
        for (double f : new double[] {0, 0.5, 1}) {
            double py = y0 + ph - f * ph;
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>%n", left - 6, py + 4, f * maxY));
        }
        for (int m = 0; m <= maxT; m += Math.max(1, (int) Math.ceil(maxT / 12))) {
            double px = left + m / maxT * pw;
            s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#777777\">%d</text>%n",
                    px, y0 + ph + 12, m));
        }
        StringBuilder pts = new StringBuilder();
        for (double[] r : rows) {
            if (r[se.column()] < 0) {
                continue;
            }
            pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", left + r[0] / 60.0 / maxT * pw, y0 + ph - r[se.column()] / maxY * ph));
        }
        s.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"1.5\"/>%n",
                pts.toString().trim()));
    }

    private static String escape(String t) {
        return t.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
