-- Columns added to an entity while dimstream runs (schema-evolution: lenient with new-columns:
-- tracked or type1): a field the source started sending, which the config does not declare. The
-- sink adds the column to the entity table and its event memory (ALTER TABLE ... ADD COLUMN, in
-- the transaction of the batch that first carried it) and records it here in that same
-- transaction, so the catalog and the tables never disagree. At start the entity's spec is the
-- config's plus these columns, in the order they were added (added_at, then name): the order in
-- which they enter record_hash.
--
-- sql_type: the type the column was added with (the first one seen; a later record that infers
-- another type does not change it). role: tracked or type1. first_source: the change that first
-- carried it, as source topic-partition@offset.
CREATE TABLE entity_columns (
    entity       text NOT NULL,
    column_name  text NOT NULL,
    sql_type     text NOT NULL,
    role         text NOT NULL CHECK (role IN ('tracked', 'type1')),
    added_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    first_source text,
    PRIMARY KEY (entity, column_name)
);
