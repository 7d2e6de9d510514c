/**
 * Database objects: Flyway migrations of dimstream's own schema ({@code dimstream.*}, run at every
 * start) and the per-entity tables, view and as-of function ({@link io.dimstream.db.schema.EntityTables},
 * the entry point; the DDL in {@code EntityDdl}, the reading of the catalog and the validation in
 * {@code TableCheck}), created when missing and validated fully when present: column names and
 * exact types (modifiers included), nullability, NOT NULL columns dimstream does not fill, the
 * generated {@code is_current}, and the invariant indexes and check, recognised by definition
 * rather than name. Each difference is refused at start with the
 * statement that fixes it; constraints and triggers dimstream cannot know are warned about.
 * With {@code table-partitions: N} the table and its event memory are created {@code PARTITION BY
 * HASH (key)} with N partitions each ({@code <table>_p0} ..); every invariant index holds the key,
 * so it is one index per partition and holds as on a plain table. An existing table partitioned
 * otherwise is written as it is, with a warning (a shadow replay rebuilds it).
 * With {@code valid-to-current: infinity} the table's open versions end at {@code 'infinity'}: its
 * {@code valid_to} is NOT NULL, {@code is_current}, the one-open-version index's predicate, the
 * valid-range check and {@code T_as_of} say so. An existing table made with the other value is refused
 * at start ({@code OpenEnd}, naming the rebuild), not converted: its generated {@code is_current}
 * would have to be dropped (PostgreSQL before 17 cannot change a generation expression), and every
 * view on the table with it.
 * The view {@code T_current} and the function {@code T_as_of} are made by column NAME from the table
 * as the catalog has it, never by position: {@code CREATE OR REPLACE VIEW} may only append columns,
 * so the view's own columns come first in its order and the table's others after them, and the view
 * keeps its OID, grants, comments and the views users built on it.
 *
 * <p>{@link io.dimstream.db.schema.EvolvedColumns}: the catalog of columns added while running
 * ({@code dimstream.entity_columns}, V008). A column is added to the table and its event memory and
 * recorded in the caller's transaction (the sink's batch), so the tables and the catalog agree
 * whether it commits or not; every reader of an entity merges the catalog into the config's spec
 * (catalog order: {@code added_at}, then name, the order the columns enter {@code record_hash}).
 * It also records widenings (V009: {@code origin}, {@code widened_from}, {@code widened_at}):
 * {@link io.dimstream.db.schema.EvolvedColumns#widen} alters a column to a safe wider type
 * ({@link io.dimstream.db.entity.TypeWidening}) with the view dropped and made again, or refuses an
 * unsafe change before any DDL, unless the table's column was changed by hand to take it.
 *
 * <p>{@link io.dimstream.db.schema.ColumnOrigins}: an entity's columns as the merged spec orders
 * them, each with its type (modifiers included), its role (key, tracked, type-1, system column) and
 * its origin, a closed set ({@code Config}, {@code AddedWhileRunning} with the catalog's instant and
 * first source), and, apart from the origin since a column of either origin may be widened, its last
 * widening ({@code Widened}: the type before, when), shown while the type is the widened one. What
 * the admin's columns page and {@code dimstream config} show.
 */
package io.dimstream.db.schema;
