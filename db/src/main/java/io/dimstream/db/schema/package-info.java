/**
 * Database objects: Flyway migrations of dimstream's own schema ({@code dimstream.*}, run at every
 * start) and the per-entity tables, view and as-of function, created when missing and validated
 * fully when present: column names and exact types (modifiers included), nullability, NOT NULL
 * columns dimstream does not fill, the generated {@code is_current}, and the invariant indexes and
 * check, recognised by definition rather than name. Each difference is refused at start with the
 * statement that fixes it; constraints and triggers dimstream cannot know are warned about.
 */
package io.dimstream.db.schema;
