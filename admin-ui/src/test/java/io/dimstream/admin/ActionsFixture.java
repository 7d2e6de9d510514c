package io.dimstream.admin;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.jobs.QuarantineActions;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.MemoryPruner;
import io.dimstream.db.write.Scd2Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import javax.sql.DataSource;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * Known data for the action pages (replay, quarantine actions, DLQ, audit), written once per test
 * JVM into the test database beside {@link AdminFixture}'s, under entities of their own:
 * <ul>
 *   <li>{@code ledger} (30-day horizon): three events quarantined by the real writer: one that can
 *       be applied ({@link #applicable}), one at or before its key's prune point ({@link #pruned},
 *       refused), one whose key holds a {@code <script>} ({@link #discardable});</li>
 *   <li>{@code journal}: three DLQ records mirrored through {@link DlqRecords}: a text value holding a
 *       {@code <script>}, a binary one shown as hex, and one without source coordinates.</li>
 * </ul>
 * Each test class acts as its own admin user (so its audit entries are its own) and its own entity.
 */
final class ActionsFixture {

    static final String PASSWORD = "ledger password 42";
    static final String VIEWER_PASSWORD = "viewer password 42";
    static final String TOKEN = "orchestrator-token-0123456789";
    static final String VIEWER_TOKEN = "reader-token-0123456789abcdef";
    static final String XSS_KEY = "<script>alert(2)</script>";
    static final String XSS_VALUE = "{\"id\": \"<script>alert(3)</script>\"";
    static final String XSS_ERROR = "value: not JSON near <script>alert(4)</script>";

    private static ActionsFixture instance;

    final DataSource ds = TestPostgres.dataSource();
    final DimstreamConfig config;
    final EntitySpec ledger;
    final EntitySpec journal;
    final long applicable;
    final long pruned;
    final long discardable;
    final List<Long> dlq;

    private ActionsFixture() throws Exception {
        String hash = new BCryptPasswordEncoder(4).encode(PASSWORD);
        config = DimstreamConfig.parse("""
                postgres: {url: embedded}
                entities:
                  - name: ledger
                    topic: fin.ledger
                    table: ui_ledger
                    key: [id]
                    tracked: [amount]
                    lateness-horizon: P30D
                    columns: {id: text, amount: bigint}
                  - name: journal
                    topic: fin.journal
                    table: ui_journal
                    key: [id]
                    tracked: [v]
                    lateness-horizon: unlimited
                    columns: {id: text, v: text}
                admin:
                  users:
                    - {name: quinn, role: admin, password-hash: "%1$s"}
                    - {name: rita, role: admin, password-hash: "%1$s"}
                    - {name: dora, role: admin, password-hash: "%1$s"}
                    - {name: sam, role: admin, password-hash: "%1$s"}
                    - {name: vera, role: viewer, password: "${VIEWER_PW}"}
                  api-tokens:
                    - {name: airflow, role: admin, token: "${ADMIN_TOKEN}"}
                    - {name: grafana, role: viewer, token: "${VIEWER_TOKEN}"}
                """.formatted(hash), "actions test config", Map.of("VIEWER_PW", VIEWER_PASSWORD, "ADMIN_TOKEN", TOKEN,
                "VIEWER_TOKEN", VIEWER_TOKEN));
        ledger = config.entity("ledger").toEntitySpec();
        journal = config.entity("journal").toEntitySpec();
        EntityTables.ensure(ds, ledger);
        EntityTables.ensure(ds, journal);
        Scd2Writer w = new Scd2Writer(ds);
        // L2: day 0 is pruned, day 5 stays as the key's prune point; day 3 later can no longer be placed
        w.apply(ledger, List.of(ev(1, 0, "L2", 10), ev(2, 5, "L2", 20), ev(3, 100, "L2", 30)));
        if (new MemoryPruner(ds).prune(ledger) != 1) {
            throw new IllegalStateException("expected exactly L2's day-0 event to be pruned");
        }
        w.apply(ledger, List.of(ev(4, 0, "L1", 1), ev(5, 100, "L1", 2), ev(6, 0, XSS_KEY, 7), ev(7, 100, XSS_KEY, 8)));
        // each 60 or more days older than its key's newest event: beyond the 30-day horizon
        ApplyResult r = w.apply(ledger, List.of(ev(8, 40, "L1", 3), ev(9, 3, "L2", 40), ev(10, 10, XSS_KEY, 9)));
        if (r.quarantined() != 3) {
            throw new IllegalStateException("expected 3 quarantined events, got " + r);
        }
        List<QuarantineActions.QuarantinedEvent> q = new QuarantineActions(ds, w).list("ledger", "pending", null, 10);
        applicable = idOf(q, "L1");
        pruned = idOf(q, "L2");
        discardable = idOf(q, XSS_KEY);

        Instant ts = Instant.parse("2025-06-01T12:00:00Z");
        new DlqRecords(ds).mirror(List.of(
                new DlqRecords.Incoming("journal", "fin.journal", 0, 41L, "fin.journal.dlq", 0, 0, "J1".getBytes(StandardCharsets.UTF_8),
                        XSS_VALUE.getBytes(StandardCharsets.UTF_8),
                        List.of(new DlqRecords.Header("dimstream.error", "bad json".getBytes(StandardCharsets.UTF_8))), XSS_ERROR, ts),
                new DlqRecords.Incoming("journal", "fin.journal", 1, 7L, "fin.journal.dlq", 0, 1, null, new byte[] {0, (byte) 0xff, 0x10},
                        List.of(new DlqRecords.Header("bin", new byte[] {(byte) 0xfe}), new DlqRecords.Header("empty", null)),
                        "value: not UTF-8", ts.plusSeconds(1)),
                new DlqRecords.Incoming("journal", null, null, null, "fin.journal.dlq", 1, 0, "J3".getBytes(StandardCharsets.UTF_8),
                        "{}".getBytes(StandardCharsets.UTF_8), List.of(), "source unknown", ts.plusSeconds(2))));
        dlq = new DlqRecords(ds).page("journal", null, 10).stream().map(DlqRecords.DlqRecord::id).sorted().toList();
    }

    private static long idOf(List<QuarantineActions.QuarantinedEvent> q, String key) {
        return q.stream().filter(e -> e.eventKey().contains(key.replace("\"", "\\\""))).findFirst()
                .orElseThrow(() -> new IllegalStateException("no quarantined event of " + key + " in " + q)).id();
    }

    static synchronized ActionsFixture get() {
        if (instance == null) {
            try {
                instance = new ActionsFixture();
            } catch (Exception e) {
                throw new IllegalStateException("loading the action pages' test data failed", e);
            }
        }
        return instance;
    }

    AdminServer server() {
        return new AdminServer(config, ds, new AdminSettings(OptionalInt.of(0), null, java.time.Clock.systemUTC()));
    }

    static Event ev(long seq, int day, String id, long amount) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", id);
        d.put("amount", amount);
        return Event.upsert(Instant.parse("2025-01-01T00:00:00Z").plus(Duration.ofDays(day)), d, seq, Source.kafka("fin.ledger", 0, seq));
    }
}
