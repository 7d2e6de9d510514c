package io.dimstream.db.retention;

import io.dimstream.db.apply.WriterLock;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.HistoryRetention;
import io.dimstream.db.sql.Transactions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;

/**
 * Bounds an entity's history ({@link HistoryRetention}; docs/semantics.md, "Retention"), run on the
 * prune schedule beside the lateness pruning.
 *
 * <ul>
 *   <li><b>Retention</b> ({@code history-retention}, horizon H = now - retention): versions whose
 *       valid_to is before H are deleted, and so are the rows of {@code <table>_superseded} whose
 *       valid_to is before H. Each key that lost versions gets its prune point moved to H
 *       ({@link RetentionSql#anchor}), so a late event at or before H is quarantined instead of
 *       recreating deleted history, and the key's history after H, hence the table as of any
 *       instant after H, is what it was.</li>
 *   <li><b>Grain</b> ({@code history-grain} g, {@code history-grain-after}, horizon G): among the
 *       versions ended before G, those valid at no instant 1970-01-01T00:00Z + n x g are deleted and
 *       the version before them lasts until the next one kept, so the table as of every grain
 *       instant is what it was; such a key's prune point moves to G.</li>
 * </ul>
 *
 * <p>Work goes a batch of keys at a time, each batch one transaction that takes the table's writer
 * lock EXCLUSIVE ({@link WriterLock}: the sink's transactions in flight end first, the next ones
 * wait for the batch) and sets {@code dimstream.forget = 'on'} (what retention removes is not kept
 * as superseded belief by the transaction-time trigger). The horizons are computed once per run
 * from the database's clock, on the UTC calendar.
 */
public final class HistoryRetainer {

    /** Keys per transaction by default. */
    public static final int DEFAULT_BATCH_KEYS = 1000;

    private final DataSource ds;
    private final int batchKeys;

    public HistoryRetainer(DataSource ds) {
        this(ds, DEFAULT_BATCH_KEYS);
    }

    /** @param batchKeys keys per transaction (and rows per superseded-table delete) */
    public HistoryRetainer(DataSource ds, int batchKeys) {
        if (batchKeys < 1) {
            throw new IllegalArgumentException("batchKeys must be positive, got " + batchKeys);
        }
        this.ds = ds;
        this.batchKeys = batchKeys;
    }

    /** What one run removed. */
    public record Retired(long versions, long grained, long events, long superseded) {

        public static final Retired NONE = new Retired(0, 0, 0, 0);

        Retired plus(Retired o) {
            return new Retired(versions + o.versions, grained + o.grained, events + o.events, superseded + o.superseded);
        }
    }

    /** One run at the database's now(); nothing for an entity that keeps its whole history. */
    public Retired retain(EntitySpec e) throws SQLException {
        if (!e.retention().any()) {
            return Retired.NONE;
        }
        Instant now;
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT now()")) {
            rs.next();
            now = rs.getObject(1, OffsetDateTime.class).toInstant();
        }
        return retain(e, now);
    }

    /** One run with the horizons counted back from {@code now} (tests, and {@link #retain(EntitySpec)}). */
    public Retired retain(EntitySpec e, Instant now) throws SQLException {
        HistoryRetention r = e.retention();
        RetentionSql sql = new RetentionSql(e);
        Retired done = Retired.NONE;
        try (Connection c = ds.getConnection()) {
            try {
                if (r.retention().isPresent()) {
                    Instant h = r.retention().get().before(now);
                    done = done.plus(walk(c, e, sql, h, null));
                    done = done.plus(new Retired(0, 0, 0, deleteSuperseded(c, e, sql, h)));
                }
                if (r.grain().isPresent()) {
                    Instant g = r.grainAfter().orElseThrow().before(now);
                    done = done.plus(walk(c, e, sql, g, r.grain().get()));
                }
            } finally {
                execute(c, sql.dropWorkTables());
            }
        }
        return done;
    }

    /**
     * The keys with something to retire before {@code horizon}, a batch per transaction, in key
     * order: retention when {@code grain} is null, else the grain's thinning.
     */
    private Retired walk(Connection c, EntitySpec e, RetentionSql sql, Instant horizon, Duration grain) throws SQLException {
        execute(c, sql.createWorkTables());
        OffsetDateTime at = horizon.atOffset(ZoneOffset.UTC);
        Retired done = Retired.NONE;
        for (boolean first = true; ; first = false) {
            boolean firstBatch = first;
            Retired batch = Transactions.inTransaction(c, tx -> grain == null ? retireBatch(tx, e, sql, at, firstBatch)
                    : grainBatch(tx, e, sql, at, grain, firstBatch));
            if (batch == null) {
                return done;
            }
            done = done.plus(batch);
        }
    }

    /** One batch of retention; null when no key is left. */
    private Retired retireBatch(Connection c, EntitySpec e, RetentionSql sql, OffsetDateTime h, boolean first) throws SQLException {
        begin(c, e, sql);
        if (update(c, sql.nextRetiredKeys(batchKeys, first), h) == 0) {
            return null;
        }
        execute(c, List.of(sql.analyzeKeys()));
        long versions = update(c, sql.deleteRetired(), h);
        long events = anchor(c, e, sql, h);
        execute(c, sql.advanceLast());
        return new Retired(versions, 0, events, 0);
    }

    /** One batch of the grain's thinning; null when no key is left. */
    private Retired grainBatch(Connection c, EntitySpec e, RetentionSql sql, OffsetDateTime g, Duration grain, boolean first)
            throws SQLException {
        begin(c, e, sql);
        String interval = grain.toString();
        long keys;
        try (PreparedStatement p = c.prepareStatement(sql.nextGrainedKeys(batchKeys, first))) {
            p.setString(1, interval);
            p.setObject(2, g);
            keys = p.executeUpdate();
        }
        if (keys == 0) {
            return null;
        }
        execute(c, List.of(sql.analyzeKeys()));
        long grained;
        try (PreparedStatement p = c.prepareStatement(sql.deleteGrained())) {
            p.setString(1, interval);
            p.setObject(2, g);
            grained = p.executeUpdate();
        }
        update(c, sql.extendKept(), g);
        long events = anchor(c, e, sql, g);
        execute(c, sql.advanceLast());
        return new Retired(0, grained, events, 0);
    }

    /** A batch's start: the writer lock, no superseded copies, no keys yet. */
    private static void begin(Connection c, EntitySpec e, RetentionSql sql) throws SQLException {
        WriterLock.exclusiveWriter(c, e);
        try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL dimstream.forget = 'on'");
            s.execute(sql.clearKeys());
        }
    }

    /** Moves the batch's keys' prune point to {@code point}; the remembered events removed. */
    private static long anchor(Connection c, EntitySpec e, RetentionSql sql, OffsetDateTime point) throws SQLException {
        long removed;
        try (PreparedStatement p = c.prepareStatement(sql.anchor())) {
            p.setObject(1, point);
            p.setObject(2, point);
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                removed = rs.getLong(1);
            }
        }
        // the writer reads prune points only of entities ever pruned: in this transaction, so no batch
        // of the sink sees a moved prune point without knowing to look
        try (PreparedStatement p = c.prepareStatement("UPDATE dimstream.entities SET last_pruned_at = now() WHERE name = ?")) {
            p.setString(1, e.name());
            p.executeUpdate();
        }
        return removed;
    }

    /** The superseded table's rows ended before the horizon, in bounded deletes; 0 when the table does not exist. */
    private long deleteSuperseded(Connection c, EntitySpec e, RetentionSql sql, Instant h) throws SQLException {
        try (PreparedStatement p = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            p.setString(1, sql.supersededTable());
            try (ResultSet rs = p.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return 0;
                }
            }
        }
        long total = 0;
        while (true) {
            long n = Transactions.inTransaction(c, tx -> {
                WriterLock.exclusiveWriter(tx, e);
                try (Statement s = tx.createStatement()) {
                    s.execute("SET LOCAL dimstream.forget = 'on'");
                }
                return (long) update(tx, sql.deleteSuperseded(batchKeys), h.atOffset(ZoneOffset.UTC));
            });
            if (n == 0) {
                return total;
            }
            total += n;
        }
    }

    private static int update(Connection c, String statement, OffsetDateTime at) throws SQLException {
        try (PreparedStatement p = c.prepareStatement(statement)) {
            p.setObject(1, at);
            return p.executeUpdate();
        }
    }

    private static void execute(Connection c, Iterable<String> statements) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String q : statements) {
                s.execute(q);
            }
        }
    }
}
