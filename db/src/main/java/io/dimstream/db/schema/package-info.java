/**
 * Database objects: Flyway migrations of dimstream's own schema ({@code dimstream.*}, run at every
 * start) and the per-entity tables, view and as-of function, created when missing and validated
 * (column names and types) when present.
 */
package io.dimstream.db.schema;
