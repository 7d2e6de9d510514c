/**
 * Events as the writer takes them: the native JSON codec (strict UTF-8 through
 * {@link io.dimstream.db.event.StrictUtf8}, the one decode of bytes to text every input path uses;
 * explicit Jackson limits on nesting, number, string and name lengths; one JSON value, content after
 * it refused naming the byte), validation against an entity (types, NULL key parts,
 * unknown columns, and every value PostgreSQL would refuse later: NUL and unpaired surrogates,
 * times outside 0001..9999, numerics beyond PostgreSQL's digit limits, keys too long for a B-tree
 * entry, values that do not fit a {@code varchar(n)} or {@code numeric(p,s)}), the record hash and
 * the surrogate key. Bad input becomes a {@link io.dimstream.db.event.Rejection} naming the reason
 * and the source position; a reason never carries a NUL, so it can be stored and sent as a header.
 * An event's arrival order ({@code seq}) is made by {@link io.dimstream.db.event.ArrivalSeq}, which
 * states how the sink's, a replay's and a load's seqs order against each other; a loaded file keeps
 * the seqs of its first load ({@link io.dimstream.db.event.LoadInputs}), so loading it again is the
 * same arrival. The date and time
 * texts of loaded files (PostgreSQL's, Spark's, pandas' spellings; a zone for texts without an
 * offset) are read by {@link io.dimstream.db.event.TimeTexts}, for {@code load} only, before
 * validation; a Kafka record's texts keep {@link io.dimstream.db.entity.ColumnType#coerce}'s stricter
 * reading.
 *
 * <p><b>Validated once.</b> An event is validated ({@link io.dimstream.db.event.EventValidator}:
 * typed, checked, hashed into a {@link io.dimstream.db.event.TypedEvent}) once, at the edge where it
 * enters: the topology's decode step, {@code load}, a replay job (the last two through the writer's
 * validating entry point). Between the topology and the sink it travels typed:
 * {@link io.dimstream.db.event.TypedEventCodec} writes the typed values (numeric scale, microsecond
 * times, jsonb's canonical text, NULL apart from {@link io.dimstream.db.event.Unchanged}), the hash,
 * the lineage and the entity's shape, and reads them back for an entity of the same shape without
 * validating or hashing again ({@code Scd2Writer.applyTyped}). A reader whose entity has another
 * shape (columns added or widened since) validates the values again, as it does records of the
 * older, untyped form.
 */
package io.dimstream.db.event;
