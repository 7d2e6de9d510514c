package io.dimstream.bench;

import java.util.List;
import java.util.Locale;
import java.util.function.ToLongFunction;

/**
 * The plot of a {@link RollingRestartBenchmark} run: per-second p99 and p50 latency against time,
 * the bar as a dashed line, each restart a vertical line with its label ({@link SvgChart}).
 */
final class RestartPlot {

    private RestartPlot() {
    }

    static String svg(List<RestartSeries.Second> seconds, List<RestartSeries.Mark> marks, long barMs, int rate) {
        double maxX = Math.max(10, seconds.isEmpty() ? 10 : seconds.get(seconds.size() - 1).s() + 1);
        long highest = Math.max(barMs, seconds.stream().mapToLong(RestartSeries.Second::p99).max().orElse(barMs));
        double step = SvgChart.step(highest);
        double maxY = Math.ceil(highest * 1.05 / step) * step;
        SvgChart c = new SvgChart(900, 440, 70, 30, 40, 60, String.format(Locale.ROOT, "End-to-end latency per second of send time, "
                + "two instances restarted in turn at %,d events/s (RollingRestartBenchmark)", rate)).yGrid(maxY, step);
        double xStep = maxX > 600 ? 120 : maxX > 200 ? 60 : 30;
        for (double x = 0; x <= maxX; x += xStep) {
            c.add("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>%n", c.left + x / maxX * c.pw, c.top + c.ph + 18, x);
        }
        c.axisLabels("seconds since the feed started (send time)", "latency, ms");
        double barY = c.py(barMs, maxY);
        c.add("<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-dasharray=\"6,4\"/>%n",
                c.left, barY, c.left + c.pw, barY);
        c.add("<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"#d62728\">bar: p99 &lt; %,d ms</text>%n", c.left + c.pw - 4, barY - 4, barMs);
        for (RestartSeries.Mark m : marks) {
            double px = c.left + m.at() / maxX * c.pw;
            c.add("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#999999\"/>%n", px, c.top, px, c.top + c.ph);
            c.add("<text x=\"%.1f\" y=\"%d\" transform=\"rotate(-90 %.1f %d)\" text-anchor=\"end\" fill=\"#555555\">%s</text>%n",
                    px + 12, c.top + 4, px + 12, c.top + 4, m.label());
        }
        line(c, seconds, RestartSeries.Second::p99, maxX, maxY, "#1f77b4");
        line(c, seconds, RestartSeries.Second::p50, maxX, maxY, "#2ca02c");
        c.add("<text x=\"%d\" y=\"%d\" fill=\"#1f77b4\">p99</text><text x=\"%d\" y=\"%d\" fill=\"#2ca02c\">p50</text>%n",
                c.left + 10, c.top + 14, c.left + 50, c.top + 14);
        return c.end();
    }

    private static void line(SvgChart c, List<RestartSeries.Second> seconds, ToLongFunction<RestartSeries.Second> y, double maxX,
                             double maxY, String color) {
        StringBuilder pts = new StringBuilder();
        for (RestartSeries.Second sec : seconds) {
            pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", c.left + (sec.s() + 0.5) / maxX * c.pw, c.py(y.applyAsLong(sec), maxY)));
        }
        c.add("<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>%n", pts.toString().trim(), color);
    }
}
