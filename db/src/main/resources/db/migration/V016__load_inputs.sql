-- The inputs `dimstream load` read, per entity: a file (its path, size, modification time and file
-- key) read with the same options and the same entity config is one input. Its first load's start
-- is the high half of every seq its lines get (ArrivalSeq.ofLoad), on every later load too, so loading
-- the same input again is the same arrival: each event a duplicate of itself, a same-time event that
-- lost a tie the first time losing it again (before, every run was a later arrival and rewrote such
-- ties, or quarantined the loser). The path is the only text of the input kept; no content is.
CREATE TABLE load_inputs (
    entity           text        NOT NULL,
    input_identity   text        NOT NULL,
    input_name       text        NOT NULL,
    first_started_at timestamptz NOT NULL,
    last_started_at  timestamptz NOT NULL,
    loads            integer     NOT NULL,
    PRIMARY KEY (entity, input_identity)
);
