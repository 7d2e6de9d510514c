/**
 * Decoders: one Kafka record of an entity's source topic to a writer {@link io.dimstream.db.event.Event},
 * a deliberate skip, or a failure with a reason for the dead-letter topic. One decoder per
 * {@code format:} of the config ({@link io.dimstream.app.decode.Decoders#forEntity}):
 * native JSON, seed-style change rows, Debezium JSON, native Avro and Debezium Avro; a
 * {@code mode: snapshot} entity's rows are read by {@link io.dimstream.app.decode.SnapshotRowDecoder}
 * (an upsert at the slice's instant). Values that mean "unchanged" (Debezium's placeholder for an
 * unchanged TOAST column, {@code unavailable-value}; NULL or missing attributes under
 * {@code ignore-null-updates}) become {@link io.dimstream.db.event.Unchanged#VALUE} in every
 * format ({@link io.dimstream.app.decode.Decoders#unchangedValues}); the writer resolves them. A field
 * that is no column of the entity is passed on when the entity makes such fields columns while running
 * ({@code new-columns: tracked} or {@code type1}, the topology adds them), kept for the validator to
 * refuse with {@code undeclared-columns: reject}, and otherwise dropped and named in
 * {@link io.dimstream.app.decode.Decoded.Ok#ignored} for the topology to count and log
 * ({@link io.dimstream.app.decode.Decoders#undeclaredFieldsDropped}). These field rules are one
 * function ({@link io.dimstream.app.decode.Decoders#fieldRules}) and the columns added while running
 * one class ({@link io.dimstream.app.decode.NewFields}), which {@code load} applies to a file's lines
 * and rows and a replay to the records it reads, so every source reads an entity's fields alike. Decoders never
 * throw for bad input; the topology validates what they return against the entity. Bytes are read
 * as strict UTF-8 by one decode, {@link io.dimstream.db.event.StrictUtf8}: a JSON value, a tombstone
 * key, and every Avro string and map key ({@code io.dimstream.schemas.AvroValues}, the failure naming
 * the field's path and the byte), never with U+FFFD; a JSON value is one value, content after it
 * refused ({@code io.dimstream.db.json.InputJson#readTree}, the reason naming the byte). Every event time is checked against the supported range (0001 to 9999) where
 * it is read, the reason naming its field ({@code ts_ms}, {@code source.ts_ms}, {@code event_time},
 * {@code after.NAME}/{@code before.NAME}/{@code data.NAME} of {@code event-time: field NAME}, the
 * time field of seed rows and snapshot rows, a tombstone's record timestamp).
 *
 * <p>Event time follows the entity's {@code event-time} ({@link io.dimstream.app.decode.Decoders#forEntity}
 * threads it): Debezium's {@code source.ts_ms} (the commit, the default; a record without it is a
 * failure, never timed by {@code ts_ms} instead, see {@link io.dimstream.app.decode.DebeziumEnvelope}),
 * {@code ts_ms}, or a field of the row image ({@link io.dimstream.app.decode.TimeField}). Debezium
 * truncates ({@code op: t}) are a {@link io.dimstream.app.decode.Decoded.Skipped} of kind
 * {@code truncate} with {@code on-truncate: ignore} or a {@link io.dimstream.app.decode.Decoded.Truncated}
 * with {@code delete-all}; message events ({@code op: m}) a skip of kind {@code message}. The
 * topology and replays decode with the same decoders (a re-driven record goes through the topology
 * again).
 * The Debezium
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
