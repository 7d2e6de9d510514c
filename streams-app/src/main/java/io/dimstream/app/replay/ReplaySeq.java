package io.dimstream.app.replay;

/**
 * The {@code seq} (arrival order) of a replayed event: its source offset shifted below every seq
 * the live path writes ({@code 2^62} lower; the sink's are changes-topic offsets, {@code load}'s
 * positive too). Among replayed events the order is the topic's; against an event the table
 * already remembers at the same key and event time, a replayed one always loses: re-reading a
 * topic never overrides what the live table decided, so a replay of what the table has seen is a
 * no-op, and a same-time event the live sink writes later still wins as a later arrival.
 */
public final class ReplaySeq {

    public static final long SHIFT = 1L << 62;

    private ReplaySeq() {
    }

    public static long of(long sourceOffset) {
        return sourceOffset - SHIFT;
    }
}
