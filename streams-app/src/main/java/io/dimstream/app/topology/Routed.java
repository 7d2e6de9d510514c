package io.dimstream.app.topology;

/**
 * The decode step's output inside one sub-topology (never serialized): a valid event as
 * {@link PendingChange} bytes under its business key, or a refused record's original value bytes
 * under its original key, bound for the dead-letter topic.
 */
record Routed(boolean valid, byte[] bytes) {
}
