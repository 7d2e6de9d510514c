package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;

/** Applies batches of events to an entity's SCD2 table, one transaction per batch. */
public final class Scd2Writer {

    private final DataSource ds;

    public Scd2Writer(DataSource ds) {
        this.ds = ds;
    }

    /** Applies a batch in its own transaction (committed on success, rolled back on failure). */
    public ApplyResult apply(EntitySpec entity, List<Event> batch) throws SQLException {
        throw new UnsupportedOperationException("being written");
    }

    /**
     * Applies a batch inside the caller's transaction ({@code c} must have auto-commit off);
     * the caller commits, so it can write its own state (sink offsets) atomically with the rows.
     */
    public ApplyResult apply(Connection c, EntitySpec entity, List<Event> batch) throws SQLException {
        throw new UnsupportedOperationException("being written");
    }
}
