/**
 * Decoders: one Kafka record of an entity's source topic to a writer {@link io.dimstream.db.event.Event},
 * a deliberate skip, or a failure with a reason for the dead-letter topic. One decoder per
 * {@code format:} of the config ({@link io.dimstream.app.decode.Decoders#forEntity}):
 * native JSON, seed-style change rows, Debezium JSON, native Avro and Debezium Avro; a
 * {@code mode: snapshot} entity's rows are read by {@link io.dimstream.app.decode.SnapshotRowDecoder}
 * (an upsert at the slice's instant). Decoders never
 * throw for bad input; the topology validates what they return against the entity. Bytes are read
 * as strict UTF-8, and every event time is checked against the supported range (0001 to 9999) where
 * it is read, the reason naming its field ({@code ts_ms}, {@code source.ts_ms}, {@code event_time},
 * the time field of seed rows and snapshot rows, a tombstone's record timestamp). The Debezium
 * decoders turn each column's encoding (a semantic type named by the record's schema, or by the
 * entity's {@code encodings:} for records without one) into the typed value it stands for
 * ({@link io.dimstream.app.decode.DebeziumValues}: dates, times and timestamps from epoch numbers,
 * decimals from their unscaled bytes, UUIDs, bytes from base64), so the same value hashes alike from
 * every format; a value that does not decode is a failure naming the column.
 * The Avro
 * decoders throw only when the schema registry cannot answer
 * ({@link io.dimstream.schemas.registry.SchemaRegistryUnavailableException}, after the deserializer's
 * retries): the record was not judged, so it is read again later instead of being dead-lettered.
 */
package io.dimstream.app.decode;
