package io.dimstream.db.jobs;

import java.time.Instant;

/**
 * One row of {@code dimstream.replay_jobs}.
 *
 * @param eventsTotal    offsets in the job's range (null until the job has started)
 * @param eventsRead     offsets consumed so far (reaches eventsTotal when the job is done)
 * @param eventsRejected undecodable or invalid records in the range (counted, not re-sent to the DLQ)
 * @param rowsChanged    version rows inserted, updated or deleted by the job
 * @param detail         for a shadow job that succeeded: where the replaced table was kept
 * @param noSwap         a shadow job that stops READY at its end offsets instead of swapping in (a previewed rebuild)
 */
public record ReplayJob(long id, String entity, String topic, ReplaySource source, ReplayTarget target, JobState state,
                        boolean cancelRequested, Long eventsTotal, long eventsRead, long eventsRejected, long rowsChanged,
                        String requestedBy, Instant requestedAt, Instant startedAt, Instant finishedAt, String error,
                        String detail, String leaseOwner, Instant leaseExpiresAt, boolean noSwap) {

    /** Percent done, 0..100, or 0 before the range is known. */
    public int percent() {
        if (eventsTotal == null || eventsTotal == 0) {
            return state == JobState.SUCCEEDED ? 100 : 0;
        }
        return (int) Math.min(100, eventsRead * 100 / eventsTotal);
    }
}
