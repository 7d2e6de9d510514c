-- The DLQ mirror kept one row per (DLQ topic, partition, offset). A DLQ topic that is recreated (or
-- a second Kafka cluster writing to the same database) starts its offsets over, and its records were
-- then left out of the mirror without a word (ON CONFLICT DO NOTHING). The record's timestamp, the
-- DLQ topic's append time, tells two records at one offset apart; a record mirrored again after a
-- restart has the same one, so it is still kept once.
ALTER TABLE dlq_records DROP CONSTRAINT dlq_records_dlq_topic_dlq_partition_dlq_offset_key;
CREATE UNIQUE INDEX dlq_records_once ON dlq_records (dlq_topic, dlq_partition, dlq_offset, record_timestamp);
