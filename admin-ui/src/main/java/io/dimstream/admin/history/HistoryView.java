package io.dimstream.admin.history;

import com.fasterxml.jackson.annotation.JsonIgnore;
import io.dimstream.admin.web.ValueText;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.VersionRow;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The history of one key as the page and {@code /api/history/...} show it: every version with
 * the attribute columns that changed from the previous version, its lineage, and the geometry of
 * the SVG timeline (computed here, drawn by the template; ignored by the JSON twin).
 */
public record HistoryView(String entity, Map<String, Object> key, List<String> keyColumns, List<String> attributeColumns,
                          List<Version> versions, @JsonIgnore Timeline timeline) {

    /**
     * One version.
     *
     * @param changed attribute columns whose value differs from the previous version's (empty for the first)
     */
    public record Version(int number, Instant validFrom, Instant validTo, boolean isCurrent, boolean isDeleted, long surrogateKey,
                          String recordHash, Map<String, Object> values, List<String> changed, Lineage lineage) {

        /** The value of column {@code c} as text (null for NULL). */
        @JsonIgnore
        public String text(String c) {
            return ValueText.text(values.get(c));
        }

        /** deleted, current or closed. */
        @JsonIgnore
        public String state() {
            return isDeleted ? "deleted" : isCurrent ? "current" : "closed";
        }

        @JsonIgnore
        public boolean isChanged(String c) {
            return changed.contains(c);
        }
    }

    /** Where the version's first event came from and when dimstream wrote the row. */
    public record Lineage(String topic, Integer partition, Long offset, Instant loadedAt) {
    }

    /** The SVG: one bar per version on its own lane, x proportional to time. */
    public record Timeline(int width, int height, String startLabel, String endLabel, List<Bar> bars) {
    }

    /** One version's bar; {@code cssClass} says current, deleted or closed. */
    public record Bar(int number, double x, double y, double width, double height, String cssClass, String title) {
    }

    static final int WIDTH = 760;
    static final int LANE = 22;
    static final int BAR = 16;
    static final int TOP = 4;
    static final int AXIS = 18;

    public static HistoryView of(EntitySpec e, List<VersionRow> rows) {
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("a history has at least one version");
        }
        List<Version> versions = new ArrayList<>();
        VersionRow prev = null;
        int n = 1;
        for (VersionRow r : rows) {
            Map<String, Object> values = new LinkedHashMap<>(r.key());
            values.putAll(r.attributes());
            List<String> changed = new ArrayList<>();
            if (prev != null) {
                for (String a : e.attributes()) {
                    if (!same(prev.attributes().get(a), r.attributes().get(a))) {
                        changed.add(a);
                    }
                }
            }
            versions.add(new Version(n++, r.validFrom(), r.validTo(), r.current(), r.deleted(), r.surrogateKey(), r.recordHash(),
                    values, changed, new Lineage(r.sourceTopic(), r.sourcePartition(), r.sourceOffset(), r.loadedAt())));
            prev = r;
        }
        return new HistoryView(e.name(), rows.get(0).key(), e.key(), e.attributes(), versions, timeline(versions));
    }

    /**
     * The time axis runs from the first {@code valid_from} to the last version's end, where an
     * open last version is drawn a tenth of the span (at least a day) long: the drawing depends on
     * the data only, not on the clock.
     */
    static Timeline timeline(List<Version> versions) {
        Instant start = versions.get(0).validFrom();
        Instant lastFrom = versions.get(versions.size() - 1).validFrom();
        Duration span = Duration.between(start, lastFrom);
        Duration tail = span.dividedBy(10).compareTo(Duration.ofDays(1)) < 0 ? Duration.ofDays(1) : span.dividedBy(10);
        Instant end = lastFrom.plus(tail);
        for (Version v : versions) {
            if (v.validTo() != null && v.validTo().isAfter(end)) {
                end = v.validTo();
            }
        }
        double total = Duration.between(start, end).toMillis();
        List<Bar> bars = new ArrayList<>();
        for (int i = 0; i < versions.size(); i++) {
            Version v = versions.get(i);
            Instant to = v.validTo() == null ? end : v.validTo();
            double x = round(WIDTH * Duration.between(start, v.validFrom()).toMillis() / total);
            double w = Math.max(2, round(WIDTH * Duration.between(v.validFrom(), to).toMillis() / total));
            String cls = v.isDeleted() ? "bar deleted" : v.isCurrent() ? "bar current" : "bar";
            String title = "v" + v.number() + (v.isDeleted() ? " deleted" : "") + (v.isCurrent() ? " current" : "") + ": "
                    + v.validFrom() + " .. " + (v.validTo() == null ? "open" : v.validTo().toString());
            bars.add(new Bar(v.number(), x, TOP + i * LANE, w, BAR, cls, title));
        }
        return new Timeline(WIDTH, TOP + versions.size() * LANE + AXIS, start.toString(),
                versions.get(versions.size() - 1).validTo() == null ? "open" : end.toString(), bars);
    }

    private static double round(double d) {
        return Math.round(d * 10) / 10.0;
    }

    private static boolean same(Object a, Object b) {
        if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
            return x.compareTo(y) == 0;
        }
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return java.util.Arrays.equals(x, y);
        }
        return Objects.equals(a, b);
    }
}
