/** Connections: a HikariCP pool to a real PostgreSQL, or an embedded PostgreSQL for {@code postgres.url: embedded}. */
package io.dimstream.db.connect;
