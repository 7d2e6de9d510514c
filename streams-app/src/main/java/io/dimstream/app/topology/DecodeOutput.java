package io.dimstream.app.topology;

/**
 * What the decode step hands on inside one sub-topology (never serialized), by where it goes: the
 * topology splits the stream on the subtype.
 */
sealed interface DecodeOutput {

    /** The bytes to write where the subtype says. */
    byte[] bytes();

    /**
     * For the classify step: a valid event as {@link PendingChange} bytes under its business key, or
     * a checked slice or truncate marker.
     */
    record ToClassify(byte[] bytes) implements DecodeOutput {
    }

    /** A refused record's original value bytes under its original key, bound for the dead-letter topic. */
    record ToDeadLetter(byte[] bytes) implements DecodeOutput {
    }
}
