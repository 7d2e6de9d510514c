-- dimstream's own tables. Entity tables are created from config (EntityTables), not here.
-- Released migrations are never edited; add V002__... instead.

-- Entities whose tables dimstream manages, with the layout they were created with.
CREATE TABLE entities (
    name          text PRIMARY KEY,
    table_name    text NOT NULL,
    key_columns   text[] NOT NULL,
    tracked       text[] NOT NULL,
    type1         text[] NOT NULL,
    registered_at timestamptz NOT NULL DEFAULT now(),
    last_pruned_at timestamptz
);

-- Events older than their key's lateness horizon: kept here with the reason, never applied
-- silently; the admin UI applies or discards them.
CREATE TABLE quarantine (
    id               bigserial PRIMARY KEY,
    entity           text NOT NULL,
    event_key        jsonb NOT NULL,
    event_time       timestamptz NOT NULL,
    event            jsonb NOT NULL,
    seq              bigint NOT NULL,
    reason           text NOT NULL,
    source_topic     text,
    source_partition integer,
    source_offset    bigint,
    quarantined_at   timestamptz NOT NULL DEFAULT now(),
    status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'applied', 'discarded')),
    resolved_by      text,
    resolved_at      timestamptz
);
CREATE INDEX quarantine_pending ON quarantine (entity, quarantined_at) WHERE status = 'pending';
-- a re-delivered event is quarantined once
CREATE UNIQUE INDEX quarantine_once ON quarantine (entity, event_key, event_time, seq);

-- The streaming sink's own offsets, written in the same transaction as the rows they produced.
CREATE TABLE sink_offsets (
    consumer_group text NOT NULL,
    topic          text NOT NULL,
    partition      integer NOT NULL,
    next_offset    bigint NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer_group, topic, partition)
);
