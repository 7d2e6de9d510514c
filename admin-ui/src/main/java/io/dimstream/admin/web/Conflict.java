package io.dimstream.admin.web;

/** An action the current state refuses (an event already resolved, a job already finished); answered 409. */
public final class Conflict extends RuntimeException {
    public Conflict(String message) {
        super(message);
    }
}
