-- Replay jobs, their per-partition progress, the DLQ mirror and the admin audit log.
-- Every admin action is a row here that the running service executes: the admin UI talks only
-- to PostgreSQL, never to Kafka.

-- A replay of a source topic range into an entity's table (target 'live') or into a fresh shadow
-- table swapped in when caught up (target 'shadow'). The worker that runs it holds a lease
-- (lease_owner until lease_expires_at, renewed by heartbeat); a RUNNING job whose lease expired is
-- resumed by any instance serving the entity.
CREATE TABLE replay_jobs (
    id                bigserial PRIMARY KEY,
    entity            text NOT NULL,
    topic             text NOT NULL,
    source_kind       text NOT NULL CHECK (source_kind IN ('earliest', 'instant', 'offsets')),
    source_instant    timestamptz,
    source_offsets    jsonb,            -- {"0": 120, "2": 0}: only these partitions, from these offsets
    target            text NOT NULL CHECK (target IN ('live', 'shadow')),
    state             text NOT NULL DEFAULT 'QUEUED'
                      CHECK (state IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    cancel_requested  boolean NOT NULL DEFAULT false,
    cancel_requested_by text,
    events_total      bigint,           -- offsets in the range, known once the job has started
    events_read       bigint NOT NULL DEFAULT 0,   -- offsets consumed so far
    events_rejected   bigint NOT NULL DEFAULT 0,   -- undecodable or invalid records (not re-sent to the DLQ)
    rows_changed      bigint NOT NULL DEFAULT 0,   -- version rows inserted + updated + deleted
    requested_by      text NOT NULL,
    requested_at      timestamptz NOT NULL DEFAULT now(),
    started_at        timestamptz,
    finished_at       timestamptz,
    error             text,
    detail            text,             -- e.g. the name the replaced table was kept under
    lease_owner       text,
    lease_expires_at  timestamptz,
    CHECK ((source_kind = 'instant') = (source_instant IS NOT NULL)),
    CHECK ((source_kind = 'offsets') = (source_offsets IS NOT NULL))
);
CREATE INDEX replay_jobs_runnable ON replay_jobs (entity, id) WHERE state IN ('QUEUED', 'RUNNING');

-- Per partition of a job: the range taken when the job started (kept, so a resumed job keeps the
-- same end) and the next offset to read, written in the same transaction as the rows it produced.
CREATE TABLE replay_progress (
    job_id        bigint NOT NULL REFERENCES replay_jobs (id) ON DELETE CASCADE,
    partition     integer NOT NULL,
    start_offset  bigint NOT NULL,
    end_offset    bigint NOT NULL,
    position      bigint NOT NULL,
    PRIMARY KEY (job_id, partition),
    CHECK (start_offset <= end_offset AND position BETWEEN start_offset AND end_offset)
);

-- A mirror of the dead-letter topics (<topic>.dlq): one row per DLQ record, inserted once.
-- redrive_state: none -> requested (by a user) -> done (produced back to the source topic) | failed.
CREATE TABLE dlq_records (
    id                bigserial PRIMARY KEY,
    entity            text NOT NULL,
    source_topic      text,
    source_partition  integer,
    source_offset     bigint,
    dlq_topic         text NOT NULL,
    dlq_partition     integer NOT NULL,
    dlq_offset        bigint NOT NULL,
    key               bytea,
    value             bytea,
    headers           jsonb NOT NULL DEFAULT '[]',  -- [{"name": ..., "value": base64}] in record order
    error             text,
    record_timestamp  timestamptz,
    received_at       timestamptz NOT NULL DEFAULT now(),
    redrive_state     text NOT NULL DEFAULT 'none' CHECK (redrive_state IN ('none', 'requested', 'done', 'failed')),
    redrive_requested_by text,
    redrive_requested_at timestamptz,
    redriven_at       timestamptz,
    redrive_error     text,
    UNIQUE (dlq_topic, dlq_partition, dlq_offset)
);
CREATE INDEX dlq_records_recent ON dlq_records (entity, id);
CREATE INDEX dlq_records_redrive ON dlq_records (id) WHERE redrive_state = 'requested';

-- Who did what, when: every state-changing admin action (replay submit/cancel, quarantine
-- apply/discard, DLQ re-drive), written in the same transaction as the action.
CREATE TABLE admin_audit (
    id      bigserial PRIMARY KEY,
    at      timestamptz NOT NULL DEFAULT now(),
    actor   text NOT NULL,
    action  text NOT NULL,
    target  text NOT NULL,
    detail  jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX admin_audit_recent ON admin_audit (at);
