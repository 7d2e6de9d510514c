/**
 * Erasure of keys (a person's records) from everything dimstream keeps in PostgreSQL.
 *
 * <p>Design notes:
 * <ul>
 *   <li><b>One transaction, every place.</b> {@link io.dimstream.db.erase.Erasure} removes the keys'
 *       versions, event memory, transaction-time history, shadow and retired tables, quarantined
 *       events, sink rejects and DLQ mirror records, and rewrites what names them in dimstream's
 *       bookkeeping (repair jobs' key lists, audit entries, integrity findings), under the table's
 *       exclusive writer lock, with {@code dimstream.forget} on so nothing it removes is kept as
 *       "superseded". Its audit entry counts rows per place and never names a key.</li>
 *   <li><b>Records are matched as stored.</b> DLQ and reject rows hold Kafka records in whatever
 *       format they came: {@link io.dimstream.db.erase.RecordMatch} reads JSON structurally and falls
 *       back to the key's bytes for anything else, preferring a record too many to one left.</li>
 *   <li><b>Tombstones keep a key erased.</b> {@link io.dimstream.db.write.ErasedKeys} stores a hash
 *       of each erased key (no text); the writer drops the events of those keys on every batch of
 *       every source ({@code Scd2Writer}: sink, replay, {@code load}, quarantine actions, shadow
 *       merges), counted as {@code erased} in the apply result. One index probe per batch when the
 *       entity has no tombstone; nothing is cached, so an erasure in another process counts from
 *       the next batch on.</li>
 * </ul>
 * Kafka is not touched: the topics, the DLQ topic and Kafka Streams' changelogs keep their copies
 * until compaction or retention removes them (docs/operations.md, "Erasing a person").
 */
package io.dimstream.db.erase;
