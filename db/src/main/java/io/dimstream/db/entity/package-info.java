/**
 * What an entity is: its table, key, tracked and type-1 columns with their types, its lateness
 * horizon and the names of the system columns. Validated on construction with messages naming
 * the config field.
 */
package io.dimstream.db.entity;
