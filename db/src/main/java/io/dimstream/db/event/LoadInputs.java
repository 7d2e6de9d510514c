package io.dimstream.db.event;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import javax.sql.DataSource;

/**
 * When each input of {@code dimstream load} was first loaded into an entity
 * ({@code dimstream.load_inputs}): the start {@link ArrivalSeq#ofLoad} numbers an input's lines from.
 * An input is what the caller's identity says it is (a file with its size and modification time,
 * read with the same options and entity config): loaded again, it gets its first load's start, so
 * its lines get the same seqs and the writer finds every event remembered (a duplicate), a tie it
 * lost the first time lost again. A changed file, other options or another config is another input:
 * a later arrival, as every load was before.
 */
public final class LoadInputs {

    private LoadInputs() {
    }

    /**
     * Records a load of the input {@code identity} of {@code entity} starting at {@code now}
     * (committed at once: a load that fails part-way and is run again must find it), and returns
     * the start of its first load, whole seconds (the resolution of a load's seq).
     *
     * @param name the input as the user named it, kept for people reading the table
     */
    public static Instant firstStart(DataSource ds, String entity, String identity, String name, Instant now) throws SQLException {
        Timestamp start = Timestamp.from(now.truncatedTo(ChronoUnit.SECONDS));
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("INSERT INTO dimstream.load_inputs (entity, input_identity, input_name, "
                     + "first_started_at, last_started_at, loads) VALUES (?, ?, ?, ?, ?, 1) ON CONFLICT (entity, input_identity) DO UPDATE "
                     + "SET last_started_at = EXCLUDED.last_started_at, loads = load_inputs.loads + 1, input_name = EXCLUDED.input_name "
                     + "RETURNING first_started_at")) {
            c.setAutoCommit(true);
            p.setString(1, entity);
            p.setString(2, identity);
            p.setString(3, name);
            p.setTimestamp(4, start);
            p.setTimestamp(5, start);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                return rs.getTimestamp(1).toInstant();
            }
        }
    }
}
