package io.dimstream.db.event;

import java.time.Instant;

/**
 * An event's arrival order, the {@code seq} the writer stores and compares ({@link Event#seq()}):
 * of two events of one key with the same {@code event_time}, the one with the greater seq is the
 * later arrival and wins (DESIGN section 3, rule 1). Every seq is made by one of three factories,
 * one per path that writes events, and they order against each other as follows:
 *
 * <ul>
 *   <li>{@link #ofReplay(long)} (a replay job re-reading a source topic): the source offset minus
 *       2^62, so in {@code [-2^62, 0)} for every offset below 2^62: <b>negative, below every seq
 *       of the other two paths</b>. A replayed event loses every same-time tie against what the
 *       sink or a load wrote, whenever either wrote it: re-reading a topic never overrides what the
 *       live table decided, so replaying what the table has seen changes nothing. Among replayed
 *       events of one source partition the topic's order holds.</li>
 *   <li>{@link #ofChangesOffset(long)} (the streaming sink): the record's offset in the changes
 *       topic, {@code >= 0}. A key lives in one changes partition, so the later record in it wins.</li>
 *   <li>{@link #ofLoad(Instant, long)} ({@code dimstream load}): {@code (s << 32) | line}, where
 *       {@code s} is the whole seconds from 2020-01-01T00:00:00Z to the run's start
 *       ({@code 0 <= s < 2^31}, runs from 2020 to 2088-01-19) and {@code line} the line number
 *       ({@code 1 .. 2^32 - 1}), so {@code > 0}. A file's "run start" is the start of its first
 *       load ({@link LoadInputs}): the same file read the same way gets the same seqs on every
 *       load (a no-op), another file or the same one changed is a later arrival and wins its ties.
 *       Within a run a later line wins.</li>
 * </ul>
 *
 * <p>A fourth seq, {@link #LOADED_ABSENCE} ({@code Long.MIN_VALUE}, below all three), is the
 * arrival order of the delete a loaded snapshot slice ({@code dimstream load --slice-at}), or a
 * slice complete in a replay's range, makes for a key it did not carry. Such a delete is only made for a key with no event at that instant,
 * so it ties with nothing when made; any row of that key at that instant arriving later, by any
 * path, wins over it (the slice did carry the key after all, or a feed's slice still arriving
 * does), and judging the slice again finds it remembered and does nothing.
 *
 * <p>Load against the sink is <b>not</b> decided by which came first. A load's seq beats a
 * changes-topic offset {@code o} at the same key and event time exactly when
 * {@code o < (s << 32) | line}: for a run started at or after 2020-01-01T00:00:01Z every offset
 * below 2^32 loses to it, and for a run started in 2026 (s above 1.8 * 10^8) every offset below
 * about 7.7 * 10^17, so in practice a load always wins such a tie, even against a same-time event
 * the sink writes after the load. Only a run started within the first second of 2020 ({@code s = 0})
 * gives seqs (the line numbers) that small offsets can beat.
 *
 * <p>Values are compared as signed longs ({@link #compareTo}), as the writer compares them.
 */
public record ArrivalSeq(long value) implements Comparable<ArrivalSeq> {

    /** How far a replayed event's seq lies below its source offset: 2^62. */
    public static final long REPLAY_SHIFT = 1L << 62;

    /** 2020-01-01T00:00:00Z: a load's seq counts whole seconds from here. */
    public static final long LOAD_EPOCH_SECOND = 1_577_836_800L;

    /** The seq of a loaded slice's delete of an absent key: below every other seq (see above). */
    public static final long LOADED_ABSENCE = Long.MIN_VALUE;

    /** The greatest line number a load's seq holds (its low 32 bits). */
    public static final long MAX_LOAD_LINE = 0xFFFF_FFFFL;

    /** The seq of a change the sink read at {@code offset} of the changes topic. */
    public static ArrivalSeq ofChangesOffset(long offset) {
        if (offset < 0) {
            throw new IllegalArgumentException("a changes-topic offset is never negative, got " + offset);
        }
        return new ArrivalSeq(offset);
    }

    /** The seq of an event a replay job read at {@code sourceOffset} of the source topic. */
    public static ArrivalSeq ofReplay(long sourceOffset) {
        if (sourceOffset < 0 || sourceOffset >= REPLAY_SHIFT) {
            throw new IllegalArgumentException("a replayed source offset must be in [0, 2^62), got " + sourceOffset);
        }
        return new ArrivalSeq(sourceOffset - REPLAY_SHIFT);
    }

    /**
     * The seq of line {@code line} (counted from 1) of a load that started at {@code runStart}.
     *
     * @throws IllegalArgumentException when the run's start is outside the scheme (see
     *                                  {@link #requireLoadStart}) or the line outside {@code 1 .. 2^32 - 1}
     */
    public static ArrivalSeq ofLoad(Instant runStart, long line) {
        long seconds = requireLoadStart(runStart);
        if (line < 1 || line > MAX_LOAD_LINE) {
            throw new IllegalArgumentException("line " + line + " is outside the seq scheme (1 to " + MAX_LOAD_LINE + ")");
        }
        return new ArrivalSeq((seconds << 32) | line);
    }

    /**
     * Checks that a load starting at {@code runStart} can number its lines, before it reads any:
     * whole seconds since 2020-01-01 from 0 to 2^31 - 1 (2020-01-01 to 2088-01-19).
     *
     * @return those seconds, the high half of the run's seqs
     */
    public static long requireLoadStart(Instant runStart) {
        long seconds = runStart.getEpochSecond() - LOAD_EPOCH_SECOND;
        if (seconds < 0 || seconds > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("load start " + runStart + " is outside the seq scheme (2020-01-01 to 2088-01-19)");
        }
        return seconds;
    }

    @Override
    public int compareTo(ArrivalSeq other) {
        return Long.compare(value, other.value);
    }
}
