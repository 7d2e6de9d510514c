package io.dimstream.admin.web;

/**
 * The request cannot be served now or at this size, through no fault of its parameters: too many
 * CSV exports at once (503, try again), a CSV over {@code admin.csv-max-mib} (507). The message
 * says what to do.
 */
public final class Unavailable extends RuntimeException {

    private final int status;

    public Unavailable(int status, String message) {
        super(message);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
