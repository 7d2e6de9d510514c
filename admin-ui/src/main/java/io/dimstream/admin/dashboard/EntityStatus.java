package io.dimstream.admin.dashboard;

import java.time.Instant;
import java.util.Map;

/**
 * One entity's line of the dashboard (and of {@code /api/dashboard}).
 *
 * @param columns         the entity's own columns (key, tracked, type-1), those added while running included
 * @param columnsAdded    of those, the columns added while running ({@code dimstream.entity_columns})
 * @param eventsLastHour  events the sink applied in the last hour by the class the writer gave each
 *                        against PostgreSQL ({@code SinkBatches.Summary.byClass}: new, changed, deleted,
 *                        unchanged, late, duplicate, quarantined, rejected, and erased when there are any); the demo's summary prints the
 *                        same map. Records the topology never passed to the sink (exact duplicates it
 *                        dropped, DLQ records) are not in it
 * @param changesPerMinute versions made per minute over the last hour: (new + changed + deleted + late) / 60
 * @param sinkLag         records waiting in the changes topic after each partition's newest batch; null: unknown
 * @param lastBatchAt     null when no batch within the last day
 * @param dlqRecords      records of the entity's dead-letter topic mirrored in {@code dimstream.dlq_records}
 *                        and not re-driven yet (the DLQ figure)
 * @param sinkRejects     records the sink (or a replay job) set aside: undecodable, invalid, or a value PostgreSQL
 *                        refused (with its SQL state); the PostgreSQL-side dead letters, listed on the DLQ page
 * @param sinkGaps        ranges of the changes topic the sink skipped after they left the log
 *                        ({@code sink.on-offset-out-of-range: skip}); to be replayed from the source topic
 * @param integrity       "ok", "failed" or "not run": the newest run in {@code dimstream.integrity_runs}
 */
public record EntityStatus(String entity, String table, int columns, int columnsAdded, long currentRows, long versions, long deletedKeys,
                           Map<String, Long> eventsLastHour, double changesPerMinute, Long sinkLag, Instant lastBatchAt,
                           Integer lastBatchEvents, Integer lastBatchApplyMs, long quarantinePending, long dlqRecords, long sinkRejects, long sinkGaps,
                           String integrity, Long integrityFindings, Instant integrityCheckedAt) {
}
