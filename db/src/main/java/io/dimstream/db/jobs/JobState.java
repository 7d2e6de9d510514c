package io.dimstream.db.jobs;

/** A replay job's state: QUEUED -> RUNNING -> SUCCEEDED | FAILED | CANCELLED (QUEUED may be CANCELLED directly). */
public enum JobState {
    QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED;

    public boolean finished() {
        return this == SUCCEEDED || this == FAILED || this == CANCELLED;
    }
}
