/**
 * Connections: a HikariCP pool to a real PostgreSQL, or an embedded PostgreSQL for
 * {@code postgres.url: embedded} (the handle's URL is printed masked); {@code StatementTimeouts}
 * limits every statement of a DataSource's borrowers (the admin's {@code statement-timeout}).
 *
 * <p><b>A hung server</b> (processes stopped, TCP still accepted: a hung VM, stuck storage, SIGSTOP)
 * is handled in two places. {@code PgConnector} makes each connection with bounded connect and login
 * per host, so the pool's adder never waits forever and a multi-host URL
 * ({@code targetServerType=primary}) reaches the promoted standby, and with a generous session socket
 * timeout (300 s) that no legitimate statement reaches. {@code HungServerWatch} frees what is in
 * flight on a hung server sooner: a connection borrowed for more than 10 s has its host asked on a NEW
 * connection whether it answers, and is aborted only when it does not; a long statement of a server
 * that answers is never cut. A broken connection (SQL state class 08) makes the pool replace all of
 * its connections, as after a failover they all point at the old primary.
 */
package io.dimstream.db.connect;
