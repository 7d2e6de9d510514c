-- Issue 18 (part): a source record re-read is quarantined once; a replay may be restricted to keys.

-- A replay re-reads a record with another seq (ArrivalSeq.ofReplay), so quarantine_once
-- (entity, event_key, event_time, seq) let an event the live path had quarantined in a second time.
-- Quarantined once per source record instead, whatever the seq and whatever became of the first row
-- (applied or discarded: the decision stands):
--  * a Kafka record (source_partition set): per (entity, key, event time, topic, partition, offset);
--    the key and time are part of it because one record can make several events (a Debezium
--    truncate, a snapshot slice's deletions by absence);
--  * without a Kafka lineage (a file line, no source): per (entity, key, event time, content).
-- The writer inserts with ON CONFLICT DO NOTHING and counts only the rows it inserted.
--
-- Copies quarantined before this migration are removed first: per record, one row is kept, a
-- resolved one (applied or discarded) before a pending one, then the oldest; the admin audit log
-- keeps who resolved what.
DELETE FROM quarantine q USING (
    SELECT id, row_number() OVER (PARTITION BY entity, event_key, event_time, source_topic, source_partition, source_offset
                                  ORDER BY status = 'pending', id) AS n
    FROM quarantine WHERE source_partition IS NOT NULL) d
WHERE q.id = d.id AND d.n > 1;
DELETE FROM quarantine q USING (
    SELECT id, row_number() OVER (PARTITION BY entity, event_key, event_time, md5(event::text)
                                  ORDER BY status = 'pending', id) AS n
    FROM quarantine WHERE source_partition IS NULL) d
WHERE q.id = d.id AND d.n > 1;

CREATE UNIQUE INDEX quarantine_once_per_record ON quarantine (entity, event_key, event_time, source_topic, source_partition, source_offset)
    WHERE source_partition IS NOT NULL;
CREATE UNIQUE INDEX quarantine_once_per_content ON quarantine (entity, event_key, event_time, md5(event::text))
    WHERE source_partition IS NULL;

-- A key-restricted replay (a repair of some keys, into the live table): NULL for a whole replay, else
-- {"keys": [["k1 col1", "k1 col2"], ...]} (each key's columns in key order, as canonical text) or
-- {"prefix": "P"} (keys whose first key column's text starts with P).
ALTER TABLE replay_jobs ADD COLUMN key_filter jsonb;
