package io.dimstream.db.jobs;

import java.util.Locale;

/** Where a replay writes: the entity table itself, or a fresh shadow table swapped in at the end. */
public enum ReplayTarget {
    LIVE, SHADOW;

    public String sql() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static ReplayTarget parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("target: \"" + s + "\" is not live or shadow");
        }
    }
}
