package io.dimstream.cli;

/**
 * A failure the user can act on, reported as one line on stderr (no stack trace) with its exit
 * code: {@link #USAGE} for a bad config, a missing input or an unreachable database;
 * {@link #KAFKA_UNREACHABLE} when Kafka did not answer within {@code --kafka-wait}.
 */
final class CliFailure extends RuntimeException {

    /** Bad config, missing input, unreachable database: the command did not run. */
    static final int USAGE = 2;

    /** The command ran and failed part-way. */
    static final int FAILED = 1;

    /** Kafka did not answer within {@code --kafka-wait} (EX_UNAVAILABLE): the command did not run; try again later. */
    static final int KAFKA_UNREACHABLE = 69;

    private final int exitCode;

    CliFailure(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
