-- What the sink could not apply, and what it could not read.
--
-- sink_rejects.sql_state: the SQLSTATE PostgreSQL answered for a record it refused (a batch that
-- failed for a data reason is split until the refused records are isolated; the rest lands in the
-- same transaction). NULL for records refused before PostgreSQL saw them (undecodable, invalid).
ALTER TABLE sink_rejects ADD COLUMN sql_state text;

-- A range of a changes-topic partition the sink never read: its stored next offset had fallen out
-- of the partition's log (retention, a recreated topic) and the sink was configured to skip
-- (sink.on-offset-out-of-range: skip). Written in the same transaction that moves the stored offset
-- past the gap, so a skip is never silent. The changes of [from_offset, to_offset) must be replayed
-- from the source topic. to_offset < from_offset: the topic was recreated (its log starts over
-- below the stored offset); everything from from_offset on in the old topic was never applied.
CREATE TABLE sink_gaps (
    id             bigserial PRIMARY KEY,
    consumer_group text NOT NULL,
    entity         text NOT NULL,
    topic          text NOT NULL,
    partition      integer NOT NULL,
    from_offset    bigint NOT NULL,
    to_offset      bigint NOT NULL,
    detected_at    timestamptz NOT NULL DEFAULT now(),
    CHECK (from_offset <> to_offset)
);
CREATE INDEX sink_gaps_recent ON sink_gaps (entity, detected_at);
