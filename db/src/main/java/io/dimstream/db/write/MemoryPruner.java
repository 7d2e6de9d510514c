package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.sql.Transactions;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;

/**
 * The event memory's pruning beyond an entity's lateness horizon (DESIGN section 5b: keep one
 * anchor per key and record the prune point, so an event at or before it is quarantined instead of
 * placed wrongly). Its statement is the writer's ({@link WriterSql#prune}), run on a schedule by the
 * service, never inside a batch.
 */
public final class MemoryPruner {

    private final DataSource ds;

    public MemoryPruner(DataSource ds) {
        this.ds = ds;
    }

    /**
     * Drops remembered events beyond the entity's lateness horizon, per key keeping the latest
     * event before the cut as an anchor that records the prune point (an event at or before it is
     * quarantined from then on, since history before it can no longer be recomputed exactly).
     * Versions keep their content; those older than the anchor lose their {@code event_seq}
     * ({@link EventMemory}: their starts are no longer read as events), and an anchor the memory had
     * no row of is written into it from its version. No-op for an unlimited horizon.
     *
     * @return the number of remembered events removed
     */
    public long prune(EntitySpec entity) throws SQLException {
        if (entity.latenessHorizon().isEmpty()) {
            return 0;
        }
        WriterSql sql = new WriterSql(entity);
        return Transactions.inTransaction(ds, c -> {
            long removed;
            try (PreparedStatement p = c.prepareStatement(sql.prune)) {
                p.setString(1, entity.latenessHorizon().get().toString());
                try (ResultSet rs = p.executeQuery()) {
                    rs.next();
                    removed = rs.getLong(1);
                }
            }
            try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.entities SET last_pruned_at = now() WHERE name = ?")) {
                p.setString(1, entity.name());
                p.executeUpdate();
            }
            return removed;
        });
    }
}
