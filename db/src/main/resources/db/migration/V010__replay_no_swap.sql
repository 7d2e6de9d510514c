-- A shadow replay that stops before its swap (a previewed rebuild): with no_swap the worker fills
-- the shadow table to the job's end offsets and leaves the job READY, the live table untouched.
-- A user then looks at what the swap would change and swaps it in (SUCCEEDED) or discards it
-- (CANCELLED, the shadow dropped); both are audited (replay.swap, replay.discard).
ALTER TABLE replay_jobs ADD COLUMN no_swap boolean NOT NULL DEFAULT false;
ALTER TABLE replay_jobs ADD CONSTRAINT replay_jobs_no_swap_shadow CHECK (NOT no_swap OR target = 'shadow');
ALTER TABLE replay_jobs DROP CONSTRAINT replay_jobs_state_check;
ALTER TABLE replay_jobs ADD CONSTRAINT replay_jobs_state_check
    CHECK (state IN ('QUEUED', 'RUNNING', 'READY', 'SUCCEEDED', 'FAILED', 'CANCELLED'));
