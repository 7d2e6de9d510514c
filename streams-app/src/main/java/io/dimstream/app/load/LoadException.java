package io.dimstream.app.load;

/**
 * Loading stopped part-way (the input could not be read, or the database refused a batch).
 * The batches before the failing one are committed; {@link #soFar()} says what they did.
 */
public final class LoadException extends Exception {

    private final LoadReport soFar;

    public LoadException(String message, LoadReport soFar, Throwable cause) {
        super(message, cause);
        this.soFar = soFar;
    }

    public LoadReport soFar() {
        return soFar;
    }
}
