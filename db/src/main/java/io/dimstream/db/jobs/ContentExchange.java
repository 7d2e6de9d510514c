package io.dimstream.db.jobs;

import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A swap's exchange of contents: the live table keeps its identity (its OID, so the views users
 * built on it, dbt's view models, their grants and comments, its indexes, constraints and
 * partitions stay what they are) and takes the shadow's rows, in the caller's transaction, under
 * the swap's ACCESS EXCLUSIVE lock:
 * <ol>
 *   <li>{@code CREATE TABLE <retired> AS TABLE <live>}: the replaced contents kept, a plain copy
 *       without indexes or constraints (for comparison; dropped by an admin or by retention);</li>
 *   <li>{@code TRUNCATE <live>} (its partitions along);</li>
 *   <li>{@code INSERT INTO <live> (columns) SELECT columns FROM <shadow>}, the columns by NAME: the
 *       live table's own, in its order (columns added while running are last there, not in the
 *       shadow), but its generated {@code is_current} and a column the shadow does not have (one a
 *       user added by hand: NULL or its default);</li>
 *   <li>{@code DROP TABLE <shadow>}.</li>
 * </ol>
 * {@code TRUNCATE} is not MVCC-safe: a transaction that took its snapshot before the swap committed
 * (REPEATABLE READ or SERIALIZABLE) and reads the table only afterwards sees it empty, where the
 * rename it replaces showed it the shadow; a READ COMMITTED query waits for the lock and sees the new
 * rows. A table another table references by a foreign key cannot be truncated: refused before
 * anything is written, naming the foreign keys.
 */
final class ContentExchange {

    private ContentExchange() {
    }

    static void exchange(Connection c, String live, String shadow, String retired) throws SQLException {
        List<String> references = TableRenames.names(c, "SELECT conrelid::regclass::text || ' (' || conname || ')' FROM pg_constraint "
                + "WHERE confrelid = ?::regclass AND contype = 'f' ORDER BY 1", live);
        if (!references.isEmpty()) {
            throw new ShadowTables.SwapRefused("the swap replaces the rows of " + live + ", which foreign keys reference: "
                    + String.join(", ", references) + "; drop them (ALTER TABLE ... DROP CONSTRAINT) before the swap and add them again "
                    + "after it");
        }
        List<String> liveColumns = insertable(c, live);
        Set<String> shadowColumns = new HashSet<>(insertable(c, shadow));
        List<String> columns = liveColumns.stream().filter(shadowColumns::contains).toList();
        String l = Sql.table(live);
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + Sql.table(retired) + " AS TABLE " + l);
            s.execute("TRUNCATE " + l);
            s.execute("INSERT INTO " + l + " (" + Sql.list(columns) + ") SELECT " + Sql.list(columns) + " FROM " + Sql.table(shadow));
            s.execute("DROP TABLE " + Sql.table(shadow));
        }
    }

    /** The columns a row is written into: not dropped, not generated, not GENERATED ALWAYS AS IDENTITY; in the table's order. */
    private static List<String> insertable(Connection c, String table) throws SQLException {
        return TableRenames.names(c, "SELECT attname FROM pg_attribute WHERE attrelid = ?::regclass AND attnum > 0 AND NOT attisdropped "
                + "AND attgenerated = '' AND attidentity <> 'a' ORDER BY attnum", table);
    }
}
