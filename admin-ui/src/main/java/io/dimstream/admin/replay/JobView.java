package io.dimstream.admin.replay;

import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.PartitionProgress;
import io.dimstream.db.jobs.ReplayJob;
import java.time.Instant;
import java.util.List;

/**
 * A replay job as the pages and {@code /api/replays} show it.
 *
 * @param from        {@code earliest}, an ISO-8601 instant (a Kafka record timestamp), or {@code partition:offset,...}
 * @param eventsTotal offsets in the job's range; null until the job has started and taken its end offsets
 * @param percent     events read of the total, 0..100
 * @param outcome     what became of it: the error of a failed job, the detail of a finished one, else null
 * @param noSwap      a shadow job that stops READY before its swap (a previewed rebuild)
 * @param ready       READY: its shadow is filled and waits for a swap or a discard (nothing more happens until then)
 */
public record JobView(long id, String entity, String topic, String from, String target, String state, boolean finished,
                      boolean cancelRequested, Long eventsTotal, long eventsRead, long eventsRejected, long rowsChanged,
                      int percent, String requestedBy, Instant requestedAt, Instant startedAt, Instant finishedAt,
                      String outcome, boolean noSwap, boolean ready) {

    static JobView of(ReplayJob j) {
        return new JobView(j.id(), j.entity(), j.topic(), j.source().toString(), j.target().sql(), j.state().name(),
                j.state().finished(), j.cancelRequested(), j.eventsTotal(), j.eventsRead(), j.eventsRejected(), j.rowsChanged(),
                j.percent(), j.requestedBy(), j.requestedAt(), j.startedAt(), j.finishedAt(),
                j.error() != null ? j.error() : j.detail(), j.noSwap(), j.state() == JobState.READY);
    }

    /**
     * A job with its partitions (empty until it has started): the job page and {@code GET /api/replays/{id}}.
     *
     * @param keys a repair's keys ({@code keys C1, C2}, {@code keys starting with "P"}), null (and left out of the JSON)
     *             for a replay of every key
     */
    public record Detail(JobView job, List<PartitionProgress> partitions,
                         @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) String keys) {
        public Detail {
            partitions = List.copyOf(partitions);
        }

        /** A job of every key (not a repair). */
        public Detail(JobView job, List<PartitionProgress> partitions) {
            this(job, partitions, null);
        }
    }
}
