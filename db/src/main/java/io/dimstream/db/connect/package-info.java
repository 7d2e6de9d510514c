/**
 * Connections: a HikariCP pool to a real PostgreSQL, or an embedded PostgreSQL for
 * {@code postgres.url: embedded} (the handle's URL is printed masked); {@code StatementTimeouts}
 * limits every statement of a DataSource's borrowers (the admin's {@code statement-timeout}).
 */
package io.dimstream.db.connect;
