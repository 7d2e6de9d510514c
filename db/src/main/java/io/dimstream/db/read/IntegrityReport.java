package io.dimstream.db.read;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The result of {@link IntegrityChecker#check}.
 *
 * @param entity      the entity checked
 * @param rowsChecked rows in its table
 * @param findings    the findings, ordered by kind, key, valid_from; capped per kind
 * @param counts      the true number of findings per kind (kinds without findings absent), which
 *                    exceeds the listed findings when the cap was hit
 */
public record IntegrityReport(String entity, long rowsChecked, List<Finding> findings, Map<Finding.Kind, Long> counts) {

    public IntegrityReport {
        Objects.requireNonNull(entity, "entity");
        findings = List.copyOf(findings);
        EnumMap<Finding.Kind, Long> c = new EnumMap<>(Finding.Kind.class);
        counts.forEach((k, n) -> {
            if (n > 0) {
                c.put(k, n);
            }
        });
        counts = Collections.unmodifiableMap(c);
    }

    /** A report whose findings are complete (no cap hit): the counts are taken from the list. */
    public IntegrityReport(String entity, long rowsChecked, List<Finding> findings) {
        this(entity, rowsChecked, findings, findings.stream()
                .collect(Collectors.groupingBy(Finding::kind, () -> new EnumMap<>(Finding.Kind.class), Collectors.counting())));
    }

    /** True when nothing was found. */
    public boolean ok() {
        return counts.isEmpty();
    }

    /** All findings, including those beyond the cap. */
    public long totalFindings() {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** True when some findings were counted but not listed. */
    public boolean truncated() {
        return totalFindings() > findings.size();
    }

    /**
     * A human readable report: {@code OK: 1234 rows, no findings}, or a summary line followed by
     * one line per finding and a line per kind whose findings were not all listed.
     */
    public String render() {
        if (ok()) {
            return "OK: " + entity + ": " + rowsChecked + " rows, no findings";
        }
        StringBuilder b = new StringBuilder("FAILED: ").append(entity).append(": ").append(rowsChecked).append(" rows, ")
                .append(totalFindings()).append(totalFindings() == 1 ? " finding (" : " findings (")
                .append(counts.entrySet().stream().map(x -> x.getKey() + " " + x.getValue()).collect(Collectors.joining(", ")))
                .append(")\n");
        for (Finding f : findings) {
            b.append(f.render()).append('\n');
        }
        for (Map.Entry<Finding.Kind, Long> x : counts.entrySet()) {
            long listed = findings.stream().filter(f -> f.kind() == x.getKey()).count();
            if (x.getValue() > listed) {
                b.append("... ").append(x.getValue() - listed).append(" more ").append(x.getKey()).append(" not listed\n");
            }
        }
        return b.toString();
    }
}
