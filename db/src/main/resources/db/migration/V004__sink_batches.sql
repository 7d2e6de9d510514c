-- One row per batch the streaming sink committed, written in the batch's own transaction (so a
-- rolled-back batch leaves no row). The admin UI's dashboard reads events by class, change rate,
-- last batch time and size, apply time and lag from here. Bounded: the sink deletes a
-- partition's rows older than a day in the same transaction (SinkBatches.record).
CREATE TABLE sink_batches (
    id             bigserial PRIMARY KEY,
    consumer_group text NOT NULL,
    entity         text NOT NULL,
    topic          text NOT NULL,
    partition      integer NOT NULL,
    first_offset   bigint NOT NULL,
    next_offset    bigint NOT NULL,
    finished_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    events         integer NOT NULL,
    new_keys       integer NOT NULL,
    changed        integer NOT NULL,
    deleted        integer NOT NULL,
    unchanged      integer NOT NULL,
    late           integer NOT NULL,
    duplicates     integer NOT NULL,
    quarantined    integer NOT NULL,
    rejected       integer NOT NULL,
    rows_inserted  integer NOT NULL,
    rows_updated   integer NOT NULL,
    rows_deleted   integer NOT NULL,
    apply_ms       integer NOT NULL,
    -- records left in the partition after this batch (end offset - next offset); NULL when unknown
    lag            bigint
);
-- the dashboard: an entity's batches of the last hour, its newest batch
CREATE INDEX sink_batches_entity_time ON sink_batches (entity, finished_at);
-- the pruning delete: one partition's old rows
CREATE INDEX sink_batches_partition_time ON sink_batches (topic, partition, finished_at);

-- Integrity reports run from the admin UI (IntegrityRuns), so the dashboard's integrity status
-- survives a restart and is the same on every admin instance. Findings are kept as the report
-- listed them (capped per kind); the newest 20 runs per entity are kept.
CREATE TABLE integrity_runs (
    id            bigserial PRIMARY KEY,
    entity        text NOT NULL,
    checked_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
    checked_by    text NOT NULL,
    millis        bigint NOT NULL,
    rows_checked  bigint NOT NULL,
    ok            boolean NOT NULL,
    counts        jsonb NOT NULL,      -- {"OVERLAP": 3, ...}: true totals per kind
    findings      jsonb NOT NULL,      -- [{"kind", "key", "valid_from", "detail"}], as listed
    truncated     boolean NOT NULL
);
CREATE INDEX integrity_runs_entity ON integrity_runs (entity, id);
