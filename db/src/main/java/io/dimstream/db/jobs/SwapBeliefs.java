package io.dimstream.db.jobs;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.schema.TransactionTimeDdl;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Transaction time across a swap ({@link ShadowTables#swap}): the shadow was filled by a replay whose
 * batches ran before the swap, and the table's earlier beliefs must stay readable after it. In the
 * swap's transaction, before the contents are exchanged:
 * <ol>
 *   <li>a live row the shadow has no identical twin of (same key, {@code valid_from}, {@code valid_to},
 *       deletion and hash) is copied into {@code T_superseded}, believed until now;</li>
 *   <li>every shadow row is stamped as learned now, then a shadow row with an identical live twin takes
 *       the twin's {@code known_from} and {@code end_known_from}: an unchanged version keeps its
 *       transaction time.</li>
 * </ol>
 * Both are one statement over the whole tables: a swap costs one more pass over the shadow.
 */
final class SwapBeliefs {

    private SwapBeliefs() {
    }

    static void carryOver(Connection c, EntitySpec live, String shadowTable) throws SQLException {
        if (!live.transactionTime()) {
            return;
        }
        SystemColumns sc = live.system();
        String l = Sql.table(live.table());
        String sh = Sql.table(shadowTable);
        String kf = Sql.ident(sc.knownFrom());
        String ekf = Sql.ident(sc.endKnownFrom());
        String vt = Sql.ident(sc.validTo());
        String twin = Sql.eq("s", "o", live.key()) + " AND s." + Sql.ident(sc.validFrom()) + " = o." + Sql.ident(sc.validFrom())
                + " AND (s." + vt + ", s." + Sql.ident(sc.isDeleted()) + ", s." + Sql.ident(sc.recordHash()) + ") IS NOT DISTINCT FROM (o." + vt
                + ", o." + Sql.ident(sc.isDeleted()) + ", o." + Sql.ident(sc.recordHash()) + ")";
        List<String> cols = new ArrayList<>(live.key());
        cols.addAll(EntitySpec.SUPERSEDED_COLUMNS);
        try (Statement s = c.createStatement()) {
            s.execute("INSERT INTO " + Sql.table(live.supersededTable()) + " (" + Sql.list(cols) + ") SELECT " + Sql.list("o", live.key())
                    + ", o." + Sql.ident(sc.validFrom()) + ", o." + vt + ", o." + Sql.ident(sc.isDeleted()) + ", o." + kf + ", o." + ekf
                    + ", now(), to_jsonb(o) FROM " + l + " o WHERE NOT EXISTS (SELECT 1 FROM " + sh + " s WHERE " + twin + ")");
            s.execute("UPDATE " + sh + " SET " + kf + " = now(), " + ekf + " = CASE WHEN " + live.openTest(null) + " THEN NULL ELSE now() END");
            s.execute("UPDATE " + sh + " s SET " + kf + " = o." + kf + ", " + ekf + " = o." + ekf + " FROM " + l + " o WHERE " + twin);
            // the exchange's INSERT brings the stamps: the insert trigger must not restamp them
            s.execute("SELECT set_config('" + TransactionTimeDdl.FORGET + "', 'on', true)");
        }
    }

    /**
     * After the exchange: the triggers fire again, a table renamed in gets them ({@link TransactionTimeDdl#ensure}),
     * and the retired table (the old one renamed away, when the layout changed) loses its own: it is a copy
     * to compare with, not a table whose beliefs are kept.
     */
    static void resume(Connection c, EntitySpec live, String retired) throws SQLException {
        if (!live.transactionTime()) {
            return;
        }
        try (Statement s = c.createStatement()) {
            s.execute("SELECT set_config('" + TransactionTimeDdl.FORGET + "', 'off', true)");
        }
        TransactionTimeDdl.ensure(c, live);
        TransactionTimeDdl.dropTriggers(c, live.withTable(retired), Sql.nameOf(live.table()));
    }
}
