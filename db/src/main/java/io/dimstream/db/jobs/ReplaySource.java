package io.dimstream.db.jobs;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Where a replay starts, per partition of the source topic; it always ends at the end offsets
 * (read_committed) taken when the job starts.
 * <ul>
 *   <li>{@code earliest}: every partition from its first retained offset;</li>
 *   <li>{@code instant}: every partition from the first record whose Kafka record timestamp is at
 *       or after the instant (Kafka's offsets-for-times; NOT the events' {@code event_time});</li>
 *   <li>{@code offsets}: only the listed partitions, each from the given offset.</li>
 * </ul>
 */
public record ReplaySource(Kind kind, Instant instant, Map<Integer, Long> offsets) {

    public enum Kind {
        EARLIEST, INSTANT, OFFSETS;

        public String sql() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    public ReplaySource {
        Objects.requireNonNull(kind, "kind");
        if ((kind == Kind.INSTANT) != (instant != null)) {
            throw new IllegalArgumentException("from: an instant goes with kind instant only");
        }
        if ((kind == Kind.OFFSETS) != (offsets != null)) {
            throw new IllegalArgumentException("from: offsets go with kind offsets only");
        }
        if (offsets != null) {
            if (offsets.isEmpty()) {
                throw new IllegalArgumentException("from: explicit offsets need at least one partition:offset");
            }
            offsets.forEach((p, o) -> {
                if (p == null || p < 0 || o == null || o < 0) {
                    throw new IllegalArgumentException("from: partition and offset must be >= 0, got " + p + ":" + o);
                }
            });
            offsets = java.util.Collections.unmodifiableMap(new TreeMap<>(offsets));
        }
    }

    public static ReplaySource earliest() {
        return new ReplaySource(Kind.EARLIEST, null, null);
    }

    public static ReplaySource at(Instant instant) {
        return new ReplaySource(Kind.INSTANT, Objects.requireNonNull(instant, "instant"), null);
    }

    public static ReplaySource offsets(Map<Integer, Long> offsets) {
        return new ReplaySource(Kind.OFFSETS, null, offsets);
    }

    /**
     * Parses {@code earliest}, an ISO-8601 instant with offset ({@code 2025-08-01T00:00:00Z}), or
     * {@code partition:offset,...} ({@code 0:120,2:0}).
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static ReplaySource parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("from: empty (expected earliest, an ISO-8601 instant, or partition:offset,...)");
        }
        String t = text.trim();
        if (t.equalsIgnoreCase("earliest")) {
            return earliest();
        }
        if (t.matches("\\d+:\\d+(\\s*,\\s*\\d+:\\d+)*")) {
            Map<Integer, Long> m = new TreeMap<>();
            for (String part : t.split("\\s*,\\s*")) {
                String[] po = part.split(":");
                int p;
                long o;
                try {
                    p = Integer.parseInt(po[0]);
                    o = Long.parseLong(po[1]);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("from: \"" + part + "\" is out of range for partition:offset");
                }
                if (m.put(p, o) != null) {
                    throw new IllegalArgumentException("from: partition " + p + " is listed twice in \"" + t + "\"");
                }
            }
            return offsets(m);
        }
        try {
            return at(java.time.OffsetDateTime.parse(t).toInstant());
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("from: \"" + t + "\" is not earliest, an ISO-8601 instant with offset "
                    + "(e.g. 2025-08-01T00:00:00Z), or partition:offset,... (e.g. 0:120,2:0)");
        }
    }

    @Override
    public String toString() {
        return switch (kind) {
            case EARLIEST -> "earliest";
            case INSTANT -> instant.toString();
            case OFFSETS -> String.join(",", offsets.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue()).toList());
        };
    }
}
