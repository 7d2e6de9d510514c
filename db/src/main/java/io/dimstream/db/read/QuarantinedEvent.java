package io.dimstream.db.read;

import java.time.Instant;

/**
 * One row of {@code dimstream.quarantine}: an event that was not applied, with the reason.
 *
 * @param eventKey the key columns as JSON text, e.g. {@code {"customer_id": "C1"}}
 * @param event    the whole event as JSON text
 * @param status   pending, applied or discarded
 */
public record QuarantinedEvent(long id, String entity, String eventKey, Instant eventTime, String event, String reason,
                               String sourceTopic, Integer sourcePartition, Long sourceOffset, Instant quarantinedAt,
                               String status, String resolvedBy, Instant resolvedAt) {
}
