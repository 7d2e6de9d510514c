package io.dimstream.admin.history;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.dimstream.admin.web.ValueText;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.VersionRow;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The history of one key as the page and {@code /api/history/...} show it: every version with
 * the attribute columns that changed from the previous version, whether it was placed late, and its
 * lineage. The timeline's geometry is {@link Timeline}'s.
 */
public record HistoryView(String entity, Map<String, Object> key, List<String> keyColumns, List<String> attributeColumns,
                          List<String> trackedColumns, List<String> type1Columns, List<Version> versions) {

    /**
     * One version.
     *
     * @param changed attribute columns whose value differs from the previous version's (empty for the first)
     * @param late    late-placed: it arrived after a version with a later valid_from ({@link HistoryView#latePlaced})
     * @param known   when this image was believed and which corrections concern it; null without transaction time
     */
    public record Version(int number, Instant validFrom, Instant validTo, boolean isCurrent, boolean isDeleted, boolean late, long surrogateKey,
                          String recordHash, Map<String, Object> values, List<String> changed, Lineage lineage,
                          @JsonInclude(JsonInclude.Include.NON_NULL) Known known) {

        public Version(int number, Instant validFrom, Instant validTo, boolean isCurrent, boolean isDeleted, boolean late, long surrogateKey,
                       String recordHash, Map<String, Object> values, List<String> changed, Lineage lineage) {
            this(number, validFrom, validTo, isCurrent, isDeleted, late, surrogateKey, recordHash, values, changed, lineage, null);
        }

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

        /** Whether an entry of the corrections list concerns this version (it was corrected later, or it is a correction). */
        @JsonIgnore
        public boolean corrected() {
            return known != null && (known.correctedBy() != null || !known.corrects().isEmpty());
        }

        /** The corrections concerning this version, in words ({@code ", corrected later (#1)"}), or "". */
        @JsonIgnore
        public String correctionNote() {
            if (known == null) {
                return "";
            }
            StringBuilder s = new StringBuilder();
            if (known.correctedBy() != null) {
                s.append(", corrected later (#").append(known.correctedBy()).append(")");
            }
            known.corrects().forEach(n -> s.append(", correction #").append(n));
            return s.toString();
        }
    }

    /**
     * A version in transaction time.
     *
     * @param knownFrom   when this image became believed; null: since ever
     * @param knownTo     when a later arrival replaced it; null: still believed
     * @param correctedBy the number of the correction that replaced this image (shown as known before it), or null
     * @param corrects    the numbers of the corrections whose transaction wrote this image
     */
    public record Known(Instant knownFrom, Instant knownTo, Integer correctedBy, List<Integer> corrects) {
        public Known {
            corrects = List.copyOf(corrects);
        }
    }

    /** Where the version's first event came from and when dimstream wrote the row. */
    public record Lineage(String topic, Integer partition, Long offset, Instant loadedAt) {
    }

    public static HistoryView of(EntitySpec e, List<VersionRow> rows) {
        return of(e, rows, null);
    }

    /** @param known one per row, in the same order, or null without transaction time */
    public static HistoryView of(EntitySpec e, List<VersionRow> rows, List<Known> known) {
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("a history has at least one version");
        }
        List<Version> versions = new ArrayList<>();
        VersionRow prev = null;
        int n = 1;
        for (int i = 0; i < rows.size(); i++) {
            VersionRow r = rows.get(i);
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
            versions.add(new Version(n++, r.validFrom(), r.validTo(), r.current(), r.deleted(), latePlaced(rows, i), r.surrogateKey(),
                    r.recordHash(), values, changed, new Lineage(r.sourceTopic(), r.sourcePartition(), r.sourceOffset(), r.loadedAt()),
                    known == null ? null : known.get(i)));
            prev = r;
        }
        return new HistoryView(e.name(), rows.get(0).key(), e.key(), e.attributes(), e.tracked(), e.type1(), versions);
    }

    /**
     * Whether version {@code i} arrived after a version with a later {@code valid_from}: an event
     * placed into the past. Arrival is compared by the lineage's offset when both versions come
     * from the same topic and partition (a key's events share a partition, so this is their
     * arrival order), else by {@code loaded_at}. The offset comes first because {@code loaded_at}
     * is when dimstream last wrote the row: closing a version, or cutting it short for a late
     * event, rewrites it, so an early version cut by a late one would look late too.
     */
    static boolean latePlaced(List<VersionRow> rows, int i) {
        VersionRow v = rows.get(i);
        for (int j = i + 1; j < rows.size(); j++) {
            VersionRow w = rows.get(j);
            if (w.validFrom().isAfter(v.validFrom()) && arrivedBefore(w, v)) {
                return true;
            }
        }
        return false;
    }

    private static boolean arrivedBefore(VersionRow a, VersionRow b) {
        if (a.sourceTopic() != null && a.sourceTopic().equals(b.sourceTopic()) && a.sourcePartition() != null
                && a.sourcePartition().equals(b.sourcePartition()) && a.sourceOffset() != null && b.sourceOffset() != null) {
            return a.sourceOffset() < b.sourceOffset();
        }
        return a.loadedAt() != null && b.loadedAt() != null && a.loadedAt().isBefore(b.loadedAt());
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
