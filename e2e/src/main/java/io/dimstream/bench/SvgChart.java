package io.dimstream.bench;

import java.util.Locale;

/**
 * The frame of the benchmarks' plots ({@link Growth#svg}, {@link RestartPlot}): hand-written SVG
 * text on a white ground with a title, horizontal grid lines with their values, the axis labels.
 * A few dozen to a few hundred elements: no plotting library needed.
 */
final class SvgChart {

    final int w;
    final int h;
    final int left;
    final int top;
    /** The plot area's width and height. */
    final double pw;
    final double ph;
    private final StringBuilder s = new StringBuilder();

    /** Opens the picture ({@code w} x {@code h}) with its title; the plot area inside the margins. */
    SvgChart(int w, int h, int left, int right, int top, int bottom, String title) {
        this.w = w;
        this.h = h;
        this.left = left;
        this.top = top;
        this.pw = w - left - right;
        this.ph = h - top - bottom;
        s.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n", w, h, w, h));
        s.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", w, h));
        s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"14\">%s</text>%n", left, title));
    }

    /** A round step for grid lines up to {@code max}: a power of ten, halved when it would give fewer than 3 lines. */
    static double step(double max) {
        double step = Math.pow(10, Math.floor(Math.log10(max)));
        return max / step < 3 ? step / 2 : step;
    }

    /** The y pixel of {@code y} on a scale from 0 to {@code maxY}. */
    double py(double y, double maxY) {
        return top + ph - y / maxY * ph;
    }

    /** Horizontal grid lines every {@code step} from 0 to {@code maxY}, each with its value at the left. */
    SvgChart yGrid(double maxY, double step) {
        for (double y = 0; y <= maxY + 1e-9; y += step) {
            double py = py(y, maxY);
            s.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>%n", left, py, left + pw, py));
            s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%,.0f</text>%n", left - 6, py + 4, y));
        }
        return this;
    }

    /** The x axis's label below the plot area, the y axis's turned along its left edge. */
    SvgChart axisLabels(String x, String y) {
        s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", left + pw / 2, h - 18, x));
        s.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%.1f\" transform=\"rotate(-90 16 %.1f)\" text-anchor=\"middle\">%s</text>%n",
                top + ph / 2, top + ph / 2, y));
        return this;
    }

    /** Appends elements (formatted with {@link Locale#ROOT}). */
    SvgChart add(String format, Object... args) {
        s.append(String.format(Locale.ROOT, format, args));
        return this;
    }

    /** The picture, closed. */
    String end() {
        return s + "</svg>\n";
    }
}
