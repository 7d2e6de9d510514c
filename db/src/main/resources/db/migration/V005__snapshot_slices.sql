-- Snapshot feeds (mode: snapshot): the slices whose end-of-slice marker the sink has applied, per
-- entity and changes-topic partition. A slice absent here is incomplete on that partition and
-- deletes nothing; an older slice completed later makes the sink re-judge the completed slices
-- after it (SnapshotSlices), which is why they are remembered.
CREATE TABLE snapshot_slices (
    entity             text NOT NULL,
    partition          integer NOT NULL,
    slice_time         timestamptz NOT NULL,
    first_completed_at timestamptz NOT NULL DEFAULT now(),
    last_completed_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (entity, partition, slice_time)
);
