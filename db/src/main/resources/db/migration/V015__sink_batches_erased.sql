-- The events of a batch the writer dropped as events of keys erased with a tombstone (V014): a class
-- of their own, so that a batch's classes add up to its events again (the dashboard's events by class,
-- the demo's summary). Rows written before this column counted none.
ALTER TABLE sink_batches ADD COLUMN erased integer NOT NULL DEFAULT 0;
