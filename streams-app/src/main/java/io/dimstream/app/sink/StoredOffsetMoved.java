package io.dimstream.app.sink;

import java.util.OptionalLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Why PostgreSQL holds another next offset for a partition than this instance expected, told by the
 * direction: offsets in {@code dimstream.sink_offsets} only ever move forward (every batch, a gap
 * skipped), so
 * <ul>
 *   <li><b>ahead</b> (stored past what this instance expected): another instance applied the
 *       partition meanwhile (a rebalance), or a commit of this one succeeded though its answer was
 *       lost; the fence did its job;</li>
 *   <li><b>behind</b> (stored before what this instance committed, or no row where it had committed
 *       one): PostgreSQL lost commits it had acknowledged: an asynchronous standby promoted without
 *       the primary's last transactions, a restore from a backup, or a hand-made change. The rows of
 *       those commits are gone with their offsets, so reading again from the stored offset applies
 *       them again (the writer is idempotent): nothing is lost, but an operator must hear of it.</li>
 * </ul>
 *
 * @param expected the next offset this instance last read or committed (empty: it found no row)
 * @param stored   what PostgreSQL holds now (empty: no row)
 */
record StoredOffsetMoved(TopicPartition tp, OptionalLong expected, OptionalLong stored) {

    /** True when the stored offset is behind what this instance committed: PostgreSQL lost commits. */
    boolean regressed() {
        if (expected.isEmpty()) {
            return false;
        }
        return stored.isEmpty() || stored.getAsLong() < expected.getAsLong();
    }

    /** The log line, one for either direction; {@code rolledBack} says what this instance dropped. */
    String message(String rolledBack) {
        if (regressed()) {
            long from = stored.orElse(0L);
            return tp + ": PostgreSQL lost commits: it holds next offset " + describe(stored) + " but this instance had committed "
                    + expected.getAsLong() + " (an asynchronous failover, or a restore, lost transactions it had acknowledged). "
                    + "The changes at offsets " + (stored.isPresent() ? "" : "from the beginning, ") + "[" + from + ", "
                    + expected.getAsLong() + ") are read again from Kafka and applied again (the writer is idempotent). Rolled back "
                    + rolledBack;
        }
        return tp + ": fenced: PostgreSQL holds next offset " + describe(stored) + " but this instance expected " + describe(expected)
                + "; another instance applied the partition meanwhile (or, after a PostgreSQL failover, a commit of this instance"
                + " whose acknowledgement was lost). Rolled back " + rolledBack + "; re-reading from the stored offset";
    }

    private static String describe(OptionalLong offset) {
        return offset.isPresent() ? Long.toString(offset.getAsLong()) : "none";
    }
}
