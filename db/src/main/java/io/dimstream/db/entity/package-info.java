/**
 * What an entity is: its table, key, tracked and type-1 columns with their types (and the
 * {@code varchar(n)} / {@code numeric(p,s)} modifiers some are declared with), its lateness horizon
 * and the names of the system columns. Validated on construction with messages naming the config
 * field, including the names PostgreSQL would refuse or cut later: identifiers over 63 bytes, and
 * column names the writer's own SQL uses ({@link io.dimstream.db.write.WriterSql#WORK_COLUMNS}).
 */
package io.dimstream.db.entity;
