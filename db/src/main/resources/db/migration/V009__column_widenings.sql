-- Widenings applied while dimstream runs (schema-evolution: lenient): when the source starts sending
-- values a column's type refuses and a safe widening takes them (smallint -> integer -> bigint ->
-- numeric, varchar(n) -> longer or text, numeric(p,s) -> more digits before the point; TypeWidening),
-- the sink alters the column (ALTER TABLE ... ALTER COLUMN ... TYPE, entity table and event memory,
-- in the transaction of the batch that first needed it) and records the new type here, so the
-- entity's spec at the next start is the table's.
--
-- origin: 'evolution' for a column added while running (V008; its sql_type is then its type now),
-- 'config' for a column the config declares whose type was widened (sql_type overrides the config's
-- type; role is the config's: key, tracked or type1). widened_from / widened_at: the type before
-- the last widening and when it was applied; NULL for a column never widened. first_source: for a
-- config row, the change that first needed the widening.
ALTER TABLE entity_columns
    ADD COLUMN origin text NOT NULL DEFAULT 'evolution' CHECK (origin IN ('evolution', 'config')),
    ADD COLUMN widened_from text,
    ADD COLUMN widened_at timestamptz;

ALTER TABLE entity_columns DROP CONSTRAINT entity_columns_role_check;
ALTER TABLE entity_columns ADD CONSTRAINT entity_columns_role_check CHECK (role IN ('key', 'tracked', 'type1'));
