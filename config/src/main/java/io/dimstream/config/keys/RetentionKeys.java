package io.dimstream.config.keys;

import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.entity.IsoSpan;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The keys of {@code entities[]} that bound an entity's history ({@link HistoryRetention},
 * docs/semantics.md "Retention"): a class of their own beside {@link ConfigKeys} (which holds the
 * other entity keys and is near the size limit), listed in {@link ConfigKeys#ENTITY}. Each value is
 * checked by its key; the rules between them are {@link HistoryRetention}'s (one message, also for
 * specs built in code), named by the entity's path here.
 */
public final class RetentionKeys {

    private static final String NONE = "none";

    private RetentionKeys() {
    }

    public static final ConfigKey<Optional<IsoSpan>> HISTORY_RETENTION = ConfigKey.key(ConfigKeys.ENTITY_SECTION, "history-retention")
            .doc("How long the history is kept: on the prune schedule (`service.prune-interval`), versions that ended (`valid_to`) "
                    + "more than this before now are deleted with their remembered events, and the key's prune point moves to that "
                    + "horizon: a late event at or before it is quarantined instead of recreating deleted history "
                    + "(docs/semantics.md, Retention). Years and months count on the UTC calendar.")
            .of("ISO-8601 duration (`P2Y`, `P18M`, `P30D`)", ConfigKey.STRING, Optional.empty(), "none: every version is kept",
                    (path, raw, problems) -> span(path, raw, problems), RetentionKeys::printed);
    public static final ConfigKey<Optional<Duration>> HISTORY_GRAIN = ConfigKey.key(ConfigKeys.ENTITY_SECTION, "history-grain")
            .doc("With `history-grain-after`: versions that ended longer ago than it are thinned to those valid at an instant "
                    + "1970-01-01T00:00Z + n x grain (`P1D`: each midnight UTC), each kept version lasting until the next kept one, "
                    + "so the table as of each such instant is unchanged. A fixed length: no years or months.")
            .of("ISO-8601 duration of fixed length (`P1D`, `PT1H`, `P7D`)", ConfigKey.STRING, Optional.empty(), "none: every version is kept",
                    (path, raw, problems) -> {
                        Optional<IsoSpan> s = span(path, raw, problems);
                        if (s == null) {
                            return null;
                        }
                        if (s.get().calendar()) {
                            problems.add(path + ": \"" + raw + "\" has years or months, whose length varies: give a fixed-length grain "
                                    + "(days, hours, minutes), e.g. P1D or P7D");
                            return null;
                        }
                        return Optional.of(s.get().fixedLength());
                    }, g -> g.map(ConfigKey::isoDuration).orElse(NONE));
    public static final ConfigKey<Optional<IsoSpan>> HISTORY_GRAIN_AFTER = ConfigKey.key(ConfigKeys.ENTITY_SECTION, "history-grain-after")
            .doc("The age beyond which `history-grain` applies: required with it, only with it, and shorter than `history-retention` "
                    + "when both are given (at any date: a year counts 365 to 366 days, a month 28 to 31).")
            .of("ISO-8601 duration (`P90D`, `P1Y`)", ConfigKey.STRING, Optional.empty(), "none",
                    (path, raw, problems) -> span(path, raw, problems), RetentionKeys::printed);

    /** The entity's retention, or null after a problem (recorded, naming the key). */
    public static HistoryRetention read(EntityValues v) {
        Optional<IsoSpan> retention = v.get(HISTORY_RETENTION);
        Optional<Duration> grain = v.get(HISTORY_GRAIN);
        Optional<IsoSpan> after = v.get(HISTORY_GRAIN_AFTER);
        if (retention == null || grain == null || after == null) {
            return null;
        }
        try {
            return new HistoryRetention(retention, grain, after);
        } catch (IllegalArgumentException e) {
            v.problems().add(v.at() + "." + e.getMessage());
            return null;
        }
    }

    /** Writes the keys of a retention other than {@link HistoryRetention#NONE} into a masked dump's entity. */
    public static void putInto(Map<String, Object> m, HistoryRetention r) {
        r.retention().ifPresent(x -> HISTORY_RETENTION.putInto(m, r.retention()));
        r.grain().ifPresent(x -> HISTORY_GRAIN.putInto(m, r.grain()));
        r.grainAfter().ifPresent(x -> HISTORY_GRAIN_AFTER.putInto(m, r.grainAfter()));
    }

    private static Optional<IsoSpan> span(String path, Object raw, List<String> problems) {
        try {
            return Optional.of(IsoSpan.parse((String) raw));
        } catch (IllegalArgumentException e) {
            problems.add(path + ": " + e.getMessage());
            return null;
        }
    }

    private static Object printed(Optional<IsoSpan> s) {
        return s.map(IsoSpan::toString).orElse(NONE);
    }
}
