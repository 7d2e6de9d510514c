/**
 * What an entity is: its table, key, tracked and type-1 columns with their types (and the
 * {@code varchar(n)} / {@code numeric(p,s)} modifiers some are declared with, {@link io.dimstream.db.entity.TypeModifier}),
 * its lateness horizon, the names of the system columns and what {@code valid_to} holds on an open
 * version ({@link io.dimstream.db.entity.ValidToCurrent}: NULL or {@code 'infinity'}; the one home of
 * the SQL that tests and writes "open", {@code EntitySpec.openTest}, {@code openEnd}, {@code endsAfter},
 * which every statement on an entity table uses instead of its own {@code IS NULL}). Validated on construction with messages naming the config
 * field, including the names PostgreSQL would refuse or cut later: identifiers over 63 bytes, and
 * column names the writer's own SQL uses ({@link io.dimstream.db.entity.EntitySpec#WORK_COLUMNS}).
 *
 * <p>Column types are a registry, as Debezium's JDBC sink keeps one class per value type:
 * <ul>
 *   <li>{@link io.dimstream.db.entity.ColumnType}, the enum: each constant's PostgreSQL name
 *       ({@code format_type}'s spelling), the other names a config may give it, and its family;
 *       the public door ({@code fromConfig}, {@code modifierFromConfig}, {@code coerce},
 *       {@code canonical}, {@code read}, {@code textSql}), the range and format constants every
 *       module uses ({@code CANONICAL_TIMESTAMP}, {@code INSTANT_RANGE}, {@code parseInstant}, ...).
 *       It holds no per-type behaviour, so no {@code switch} over its own constants;</li>
 *   <li>one package-private {@link io.dimstream.db.entity.ValueType} per family, which does the four
 *       jobs for its types: typing a value for a column, refusing what PostgreSQL would refuse later
 *       with a reason naming the type ({@code coerce}); its canonical text, the input of the record
 *       hash and the literal COPY sends ({@code canonical}); reading it over JDBC ({@code read}); the
 *       SQL printing a stored value as a text {@code coerce} reads back ({@code textSql}). The
 *       families: {@code TextValues}, {@code IntegerValues} (smallint, integer, bigint),
 *       {@code NumericValues}, {@code DoubleValues}, {@code BooleanValues}, {@code UuidValues},
 *       {@code DateValues}, {@code TimestampTzValues}, {@code TimestampValues}, {@code TimeValues},
 *       {@code JsonbValues} and {@code ByteaValues}. {@code jsonb}'s canonical text is PostgreSQL's
 *       jsonb normal form without whitespace ({@link io.dimstream.db.entity.JsonbText});</li>
 *   <li>{@link io.dimstream.db.entity.TypeWidening}: which type changes are safe, and which one a
 *       value the column refuses asks for.</li>
 * </ul>
 * {@code ColumnTypeContractTest} pins every family's outcomes and refusals as data.
 */
package io.dimstream.db.entity;
