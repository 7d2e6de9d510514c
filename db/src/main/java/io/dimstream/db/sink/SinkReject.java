package io.dimstream.db.sink;

import java.util.Objects;

/**
 * A changes-topic record the sink set aside instead of applying ({@code dimstream.sink_rejects}),
 * with the record's bytes, so it can be looked at and applied again once the cause is fixed.
 *
 * @param reason   why, in one line
 * @param sqlState the SQLSTATE when PostgreSQL refused it; null when it was refused before (undecodable, invalid)
 */
public record SinkReject(PartitionRef partition, long offset, String entity, String reason, String sqlState, byte[] key,
                         byte[] value) {

    /** Reasons are capped: the record itself is kept beside them. */
    public static final int MAX_REASON = 1000;

    public SinkReject {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(reason, "reason");
        // the reason may quote a refused value: what PostgreSQL's text cannot hold is spelled out
        String line = io.dimstream.db.event.Rejection.printable(reason.lines().findFirst().orElse(reason));
        reason = line.length() <= MAX_REASON ? line : line.substring(0, MAX_REASON) + "...";
    }
}
