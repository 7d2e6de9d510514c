-- Snapshot-mode replays (mode: snapshot entities): what a replay job has read of each slice on
-- each source partition, written in the same transaction as the job's positions, so a resumed job
-- knows which slices its range holds whole (io.dimstream.app.replay.SnapshotReplay). A slice
-- deletes keys by absence only once every partition's row here is whole and has its marker.
CREATE TABLE replay_slices (
    job_id        bigint NOT NULL REFERENCES replay_jobs (id) ON DELETE CASCADE,
    slice_time    timestamptz NOT NULL,
    partition     integer NOT NULL,
    -- the slice's first record on this partition (a row, or its marker) was read after a boundary
    -- (an end-of-slice marker read earlier in the range, or the range starts at offset 0), so none
    -- of its rows there lies before the range's start
    whole         boolean NOT NULL,
    -- the offset of the slice's end-of-slice marker on this partition, once read, and the partition
    -- count it names
    marker_offset bigint,
    partitions    integer,
    PRIMARY KEY (job_id, slice_time, partition)
);
