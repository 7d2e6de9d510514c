-- Changes-topic records the streaming sink could not apply: undecodable records, and events the
-- writer refused (EventValidator). Written in the same transaction as the sink's offsets, so a
-- record is either applied, or here, never lost and never skipped silently.
CREATE TABLE sink_rejects (
    id             bigserial PRIMARY KEY,
    consumer_group text NOT NULL,
    topic          text NOT NULL,
    partition      integer NOT NULL,
    "offset"       bigint NOT NULL,
    entity         text NOT NULL,
    reason         text NOT NULL,
    key            bytea,
    value          bytea,
    rejected_at    timestamptz NOT NULL DEFAULT now()
);
-- a record re-read after a rollback is rejected once per consumer group
CREATE UNIQUE INDEX sink_rejects_once ON sink_rejects (consumer_group, topic, partition, "offset");
CREATE INDEX sink_rejects_recent ON sink_rejects (entity, rejected_at);
