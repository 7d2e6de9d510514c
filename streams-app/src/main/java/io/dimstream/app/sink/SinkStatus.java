package io.dimstream.app.sink;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What the sink says of itself, for the health endpoints and the logs: a snapshot the sink's thread
 * publishes after every loop (and when it stops); safe to read from any thread.
 *
 * @param state      {@link State#STARTING} until the consumer runs, {@link State#RUNNING}, {@link State#STOPPED}
 *                   after {@link ChangeSink#close()}, {@link State#FAILED} when the thread died of anything else
 * @param failure    what killed the thread ({@code FAILED}), one line
 * @param database   set while PostgreSQL is unavailable (a transient failure being retried), one line
 * @param partitions the partitions this instance owns
 * @param applying   set while the sink's thread is inside PostgreSQL transactions (a wave of batches): what and
 *                   since when. The thread publishes nothing else until they end, so this is how a reader
 *                   tells a sink blocked on a hung server (the rest of this status then ages) from one at work
 */
public record SinkStatus(State state, Optional<String> failure, Optional<String> database, List<Partition> partitions,
                         Optional<Applying> applying) {

    /** The transactions the sink's thread is inside: {@code what} (records and partitions), started at {@code since}. */
    public record Applying(String what, Instant since) {
    }

    /** A status with no transaction in flight. */
    public SinkStatus(State state, Optional<String> failure, Optional<String> database, List<Partition> partitions) {
        this(state, failure, database, partitions, Optional.empty());
    }

    /** This status, the thread now inside transactions applying {@code what} since {@code since}. */
    SinkStatus applying(String what, Instant since) {
        return new SinkStatus(state, failure, database, partitions, Optional.of(new Applying(what, since)));
    }

    /** The sink thread's state. */
    public enum State { STARTING, RUNNING, STOPPED, FAILED }

    /**
     * One owned partition.
     *
     * @param committed       the next offset stored in PostgreSQL, -1 when none yet
     * @param lag             records after the stored offset, -1 when unknown
     * @param buffered        records read and not applied yet
     * @param failing         why its batches fail (neither transient nor a record's fault), while they do
     * @param stopped         why it is stopped on this instance (its stored offset left the log)
     * @param sinceProgress   time since its last committed batch (or since it had nothing to apply)
     * @param stuck           records left and no progress for longer than {@code sink.stuck-after}
     */
    public record Partition(String topic, int partition, String entity, long committed, long lag, int buffered,
                            Optional<String> failing, Optional<String> stopped, Duration sinceProgress, boolean stuck) {
    }

    public SinkStatus {
        partitions = List.copyOf(partitions);
    }

    static SinkStatus starting() {
        return new SinkStatus(State.STARTING, Optional.empty(), Optional.empty(), List.of());
    }

    /** True while the thread runs and no partition is stuck or stopped: what readiness asks of the sink. */
    public boolean healthy() {
        return (state == State.RUNNING || state == State.STARTING) && partitions.stream().noneMatch(p -> p.stuck() || p.stopped().isPresent());
    }
}
