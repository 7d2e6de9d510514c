package io.dimstream.db.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.RecordHash;
import io.dimstream.db.event.Source;
import io.dimstream.db.read.KnownHistory.Belief;
import io.dimstream.db.read.KnownHistory.Correction;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link KnownHistory} on a history written in three transactions: T1 the January and March
 * versions (free, pro), T2 an in-order May change (gold: closes March's version in place), T3 a late
 * February event (basic) that rewrites January's closed version. Transaction times are named T1..T3
 * (the {@code known_from} each transaction stamped) in the rendered rows; {@code loaded_at} too.
 */
class KnownHistoryTest {

    private static final DataSource DS = TestPostgres.dataSource();
    private static final EntitySpec SPEC = EntitySpec.builder()
            .name("kh_plan").table("kh_plan").key(List.of("id")).tracked(List.of("plan")).type1(List.of("seen"))
            .columns(HistoryQueriesTest.columns("id", ColumnType.TEXT, "plan", ColumnType.TEXT, "seen", ColumnType.BIGINT))
            .latenessHorizon(Optional.empty()).build();
    private static final KnownHistory KNOWN = new KnownHistory(DS);

    /** Real transaction time to its name (T1..T3). */
    private static final Map<Instant, String> NAMES = new LinkedHashMap<>();
    /** An instant read after each commit: before T1, after T1, after T2, after T3. */
    private static final List<Instant> AFTER = new ArrayList<>();
    private static final Map<Instant, Long> SURROGATES = new LinkedHashMap<>();

    private static Event up(long seq, String t, String plan, long seen) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", "K");
        d.put("plan", plan);
        d.put("seen", seen);
        return Event.upsert(Instant.parse(t), d, seq, Source.kafka("plans", 0, seq));
    }

    @BeforeAll
    static void writeInThreeTransactions() throws SQLException {
        EntityTables.ensure(DS, SPEC);
        Scd2Writer w = new Scd2Writer(DS);
        AFTER.add(clock());
        w.apply(SPEC, List.of(up(1, "2025-01-01T00:00:00Z", "free", 1), up(2, "2025-03-01T00:00:00Z", "pro", 2)));
        AFTER.add(clock());
        w.apply(SPEC, List.of(up(3, "2025-05-01T00:00:00Z", "gold", 3)));
        AFTER.add(clock());
        w.apply(SPEC, List.of(up(4, "2025-02-01T00:00:00Z", "basic", 4)));
        AFTER.add(clock());
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT known_from FROM kh_plan UNION SELECT known_from FROM kh_plan_superseded ORDER BY 1");
             ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                NAMES.put(rs.getObject(1, OffsetDateTime.class).toInstant(), "T" + (NAMES.size() + 1));
            }
        }
        for (VersionRow r : new HistoryQueries(DS).history(SPEC, List.of("K"))) {
            SURROGATES.put(r.validFrom(), r.surrogateKey());
        }
    }

    private static Instant clock() throws SQLException {
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement("SELECT clock_timestamp()");
             ResultSet rs = p.executeQuery()) {
            rs.next();
            return rs.getObject(1, OffsetDateTime.class).toInstant();
        }
    }

    private static String name(Instant t) {
        return t == null ? "-" : NAMES.getOrDefault(t, t.toString());
    }

    /** Every field of a belief; the surrogate key and the hash as "ok" when they are the version's own. */
    private static String render(Belief b) {
        VersionRow r = b.row();
        String plan = (String) r.attributes().get("plan");
        return r.key().get("id") + " plan=" + plan + " seen=" + r.attributes().get("seen") + " | " + day(r.validFrom()) + ".."
                + (r.validTo() == null ? "open" : day(r.validTo())) + (r.deleted() ? " deleted" : r.current() ? " current" : " closed")
                + " | sk " + (SURROGATES.get(r.validFrom()) == r.surrogateKey() ? "ok" : r.surrogateKey())
                + " hash " + (RecordHash.hex(RecordHash.of(List.of(plan))).equals(r.recordHash()) ? "ok" : r.recordHash())
                + " | " + r.sourceTopic() + " p" + r.sourcePartition() + " @" + r.sourceOffset() + " loaded " + name(r.loadedAt())
                + " | known " + name(b.knownFrom()) + ".." + name(b.knownTo());
    }

    private static String day(Instant t) {
        return t.toString().substring(0, 10);
    }

    private static List<String> history(Instant known) throws SQLException {
        return KNOWN.history(SPEC, List.of("K"), known).stream().map(KnownHistoryTest::render).toList();
    }

    @Test
    void theHistoryAsKnownAfterEachTransactionAndNow() throws SQLException {
        assertThat(NAMES.values()).containsExactly("T1", "T2", "T3");
        assertThat(history(AFTER.get(0))).isEmpty();
        assertThat(history(AFTER.get(1))).containsExactly(
                "K plan=free seen=1 | 2025-01-01..2025-03-01 closed | sk ok hash ok | plans p0 @1 loaded T1 | known T1..T3",
                "K plan=pro seen=2 | 2025-03-01..open current | sk ok hash ok | plans p0 @2 loaded T2 | known T1..-");
        assertThat(history(AFTER.get(2))).containsExactly(
                "K plan=free seen=1 | 2025-01-01..2025-03-01 closed | sk ok hash ok | plans p0 @1 loaded T1 | known T1..T3",
                "K plan=pro seen=2 | 2025-03-01..2025-05-01 closed | sk ok hash ok | plans p0 @2 loaded T2 | known T1..-",
                "K plan=gold seen=3 | 2025-05-01..open current | sk ok hash ok | plans p0 @3 loaded T2 | known T2..-");
        List<String> now = List.of(
                "K plan=free seen=1 | 2025-01-01..2025-02-01 closed | sk ok hash ok | plans p0 @1 loaded T3 | known T3..-",
                "K plan=basic seen=4 | 2025-02-01..2025-03-01 closed | sk ok hash ok | plans p0 @4 loaded T3 | known T3..-",
                "K plan=pro seen=2 | 2025-03-01..2025-05-01 closed | sk ok hash ok | plans p0 @2 loaded T2 | known T1..-",
                "K plan=gold seen=3 | 2025-05-01..open current | sk ok hash ok | plans p0 @3 loaded T2 | known T2..-");
        assertThat(history(AFTER.get(3))).isEqualTo(now);
        assertThat(history(null)).isEqualTo(now);
    }

    @Test
    void atEveryValidInstantTheHistoryAsKnownIsWhatTheTwoArgumentAsOfSays() throws SQLException {
        List<Instant> validAt = List.of(Instant.parse("2024-12-31T00:00:00Z"), Instant.parse("2025-01-15T00:00:00Z"),
                Instant.parse("2025-02-15T00:00:00Z"), Instant.parse("2025-03-15T00:00:00Z"), Instant.parse("2025-05-15T00:00:00Z"));
        for (Instant known : AFTER) {
            List<Belief> h = KNOWN.history(SPEC, List.of("K"), known);
            for (Instant v : validAt) {
                List<VersionRow> fromHistory = h.stream().map(Belief::row)
                        .filter(r -> !r.validFrom().isAfter(v) && (r.validTo() == null || r.validTo().isAfter(v)) && !r.deleted()).toList();
                assertThat(fromHistory).as("valid at %s, known at %s", v, known).isEqualTo(asOf(v, known));
            }
        }
    }

    /** The key's rows of {@code kh_plan_as_of(v, known)}, read whole. */
    private static List<VersionRow> asOf(Instant v, Instant known) throws SQLException {
        Columns cols = new Columns(SPEC);
        List<VersionRow> out = new ArrayList<>();
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement("SELECT " + cols.select(null) + " FROM "
                + Sql.table(SPEC.asOfFunction()) + "(?, ?) WHERE id = 'K'")) {
            p.setObject(1, v.atOffset(ZoneOffset.UTC));
            p.setObject(2, known.atOffset(ZoneOffset.UTC));
            try (ResultSet rs = p.executeQuery()) {
                while (rs.next()) {
                    out.add(cols.read(rs, 1));
                }
            }
        }
        return out;
    }

    @Test
    void renamedSystemColumnsAndACompositeKeyAreReadByTheirNames() throws SQLException {
        EntitySpec spec = EntitySpec.builder()
                .name("kh_account").table("kh_account").key(List.of("region", "account_no")).tracked(List.of("status"))
                .columns(HistoryQueriesTest.columns("region", ColumnType.TEXT, "account_no", ColumnType.BIGINT, "status", ColumnType.TEXT))
                .latenessHorizon(Optional.empty())
                .system(new SystemColumns("sk", "from_ts", "to_ts", "current_flag", "deleted_flag", "row_hash", "src_topic", "src_partition",
                        "src_offset", "load_ts"))
                .build();
        EntityTables.ensure(DS, spec);
        Scd2Writer w = new Scd2Writer(DS);
        w.apply(spec, List.of(account(1, "2025-01-01T00:00:00Z", "open"), account(2, "2025-03-01T00:00:00Z", "frozen")));
        Instant between = clock();
        w.apply(spec, List.of(account(3, "2025-02-01T00:00:00Z", "watched")));
        List<Object> key = List.of("eu", 7L);
        assertThat(KNOWN.history(spec, key, between).stream().map(KnownHistoryTest::periodAndStatus).toList())
                .containsExactly("2025-01-01..2025-03-01 open corrected", "2025-03-01..open frozen");
        assertThat(KNOWN.history(spec, key, null).stream().map(KnownHistoryTest::periodAndStatus).toList())
                .containsExactly("2025-01-01..2025-02-01 open", "2025-02-01..2025-03-01 watched", "2025-03-01..open frozen");
        List<Correction> corrections = KNOWN.corrections(spec, key);
        assertThat(corrections.stream().map(c -> periodAndStatus(c.superseded()) + " -> "
                + c.replacements().stream().map(KnownHistoryTest::periodAndStatus).toList()).toList())
                .containsExactly("2025-01-01..2025-03-01 open corrected -> [2025-01-01..2025-02-01 open, 2025-02-01..2025-03-01 watched]");
        assertThat(corrections.get(0).superseded().row().key()).isEqualTo(Map.of("region", "eu", "account_no", 7L));
    }

    private static Event account(long seq, String t, String status) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("region", "eu");
        d.put("account_no", 7L);
        d.put("status", status);
        return Event.upsert(Instant.parse(t), d, seq, Source.kafka("accounts", 0, seq));
    }

    /** The period, the tracked value and "corrected" when the image was superseded later. */
    private static String periodAndStatus(Belief b) {
        VersionRow r = b.row();
        return day(r.validFrom()) + ".." + (r.validTo() == null ? "open" : day(r.validTo())) + " " + r.attributes().get("status")
                + (b.knownTo() == null ? "" : " corrected");
    }

    @Test
    void theSupersededImageWithWhatTheSameTransactionWroteInItsPlace() throws SQLException {
        List<Correction> corrections = KNOWN.corrections(SPEC, List.of("K"));
        assertThat(corrections).hasSize(1);
        assertThat(render(corrections.get(0).superseded()))
                .isEqualTo("K plan=free seen=1 | 2025-01-01..2025-03-01 closed | sk ok hash ok | plans p0 @1 loaded T1 | known T1..T3");
        assertThat(corrections.get(0).replacements().stream().map(KnownHistoryTest::render).toList()).containsExactly(
                "K plan=free seen=1 | 2025-01-01..2025-02-01 closed | sk ok hash ok | plans p0 @1 loaded T3 | known T3..-",
                "K plan=basic seen=4 | 2025-02-01..2025-03-01 closed | sk ok hash ok | plans p0 @4 loaded T3 | known T3..-");
        assertThat(KNOWN.corrections(SPEC, List.of("nobody"))).isEmpty();
    }
}
