-- The tables a `connectors:` entry of the config found behind its connector (Debezium's topics, one
-- per captured table), with the shape read from the first record's schema: the record key's fields
-- (the business key) and the row image's fields with their PostgreSQL types, in the record's order.
-- Each becomes an entity as if declared by hand with these columns (the connector's `entity:` and
-- `tables:` options applied at each start), so a restart, a replay, the admin and dbt-sources see
-- the same entities without reading Kafka again. Columns the source adds later go through
-- entity_columns (V008) as for any entity; this row keeps the shape of the first record.
--
-- One row per connector and topic: two connectors (of one config, or of two deployments sharing the
-- database) that cover one topic each record it, and each resolves only its own rows.
CREATE TABLE connector_tables (
    connector     text NOT NULL,
    topic         text NOT NULL,
    source_schema text NOT NULL,
    source_table  text NOT NULL,
    key_columns   jsonb NOT NULL,
    columns       jsonb NOT NULL,
    discovered_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    seq           bigserial NOT NULL,
    PRIMARY KEY (connector, topic)
);
