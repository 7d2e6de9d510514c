package io.dimstream.db.entity;

import java.time.Duration;
import java.util.Optional;

/**
 * How long an entity keeps its history (docs/semantics.md, "Retention"): versions that ended before
 * {@code retention} ago are deleted; with {@code grain}, versions that ended before
 * {@code grainAfter} ago are thinned to one per key per grain period (those valid at an instant
 * epoch + n * grain). Run on the prune schedule ({@code io.dimstream.db.retention.HistoryRetainer}).
 * Its checks name the config keys ({@code ConfigReader} prefixes the entity's path).
 *
 * @param retention  empty: keep forever
 * @param grain      empty: keep every version; a fixed length (no years or months)
 * @param grainAfter the second horizon, given exactly when {@code grain} is; shorter than
 *                   {@code retention} at any date when both are given
 */
public record HistoryRetention(Optional<IsoSpan> retention, Optional<Duration> grain, Optional<IsoSpan> grainAfter) {

    /** Keep every version forever: the default. */
    public static final HistoryRetention NONE = new HistoryRetention(Optional.empty(), Optional.empty(), Optional.empty());

    public HistoryRetention {
        grain.ifPresent(g -> {
            if (g.isNegative() || g.isZero()) {
                throw new IllegalArgumentException("history-grain: must be positive, got " + g);
            }
        });
        if (grain.isPresent() && grainAfter.isEmpty()) {
            throw new IllegalArgumentException("history-grain-after: required with history-grain (the age beyond which versions "
                    + "are kept at grain " + text(grain.get()) + "), e.g. P90D");
        }
        if (grainAfter.isPresent() && grain.isEmpty()) {
            throw new IllegalArgumentException("history-grain-after: only with history-grain (the grain versions older than "
                    + grainAfter.get() + " are kept at), e.g. history-grain: P1D");
        }
        if (grainAfter.isPresent() && retention.isPresent() && grainAfter.get().longest().compareTo(retention.get().shortest()) >= 0) {
            throw new IllegalArgumentException("history-grain-after: " + grainAfter.get() + " must be shorter than history-retention "
                    + retention.get() + " (at any date: a year counts 365 to 366 days, a month 28 to 31), or versions would be "
                    + "deleted before they are thinned");
        }
    }

    /** {@code P1D} rather than {@code PT24H} for whole days. */
    private static String text(Duration d) {
        return d.toSeconds() % 86_400 == 0 && d.toNanosPart() == 0 ? "P" + d.toDays() + "D" : d.toString();
    }

    /** Whether anything is ever retired. */
    public boolean any() {
        return retention.isPresent() || grain.isPresent();
    }
}
