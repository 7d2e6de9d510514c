/**
 * What an entity is: its table, key, tracked and type-1 columns with their types (and the
 * {@code varchar(n)} / {@code numeric(p,s)} modifiers some are declared with), its lateness horizon
 * and the names of the system columns. {@link io.dimstream.db.entity.ColumnType} types a value for a
 * column (refusing what PostgreSQL would refuse) and gives its canonical text, the input of the
 * record hash and the literal COPY sends; {@code jsonb}'s canonical text is PostgreSQL's jsonb
 * normal form without whitespace ({@link io.dimstream.db.entity.JsonbText}). Validated on construction with messages naming the config
 * field, including the names PostgreSQL would refuse or cut later: identifiers over 63 bytes, and
 * column names the writer's own SQL uses ({@link io.dimstream.db.entity.EntitySpec#WORK_COLUMNS}).
 */
package io.dimstream.db.entity;
