package io.dimstream.db.jobs;

/**
 * A replay job's state: QUEUED -> RUNNING -> SUCCEEDED | FAILED | CANCELLED (QUEUED may be CANCELLED directly).
 * A shadow job submitted with {@code no_swap} stops at its end offsets in READY (the shadow filled,
 * the live table untouched) until a user swaps it in (SUCCEEDED) or discards it (CANCELLED): see
 * {@link ShadowPreviews}.
 */
public enum JobState {
    QUEUED, RUNNING, READY, SUCCEEDED, FAILED, CANCELLED;

    public boolean finished() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }

    /** Nothing more happens to the job without a user: it has finished, or it waits READY for its swap or discard. */
    public boolean settled() {
        return finished() || this == READY;
    }
}
