package io.dimstream.admin;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sink.SinkBatch;
import io.dimstream.db.sink.SinkBatches;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * Known data for the admin tests, written once per test JVM through the real writer: a customer
 * entity (one text key) and an account entity (composite text + bigint key, a 1-day lateness
 * horizon, so one late event is quarantined), and two sink batches of the customer.
 */
final class AdminFixture {

    static final String ADMIN_PASSWORD = "correct horse battery staple";
    static final String VIEWER_PASSWORD = "viewer-password-1";
    static final String ADMIN_TOKEN = "admin-token-0123456789abcdef";
    static final String VIEWER_TOKEN = "viewer-token-0123456789abcdef";
    static final String XSS = "<script>alert(1)</script>@x.io";

    static final Map<String, String> ENV = Map.of("VIEWER_PW", VIEWER_PASSWORD, "ADMIN_TOKEN", ADMIN_TOKEN,
            "VIEWER_TOKEN", VIEWER_TOKEN);

    private static AdminFixture instance;

    final DataSource ds;
    private final String hash;
    final DimstreamConfig config;
    final EntitySpec customer;
    final EntitySpec account;
    final EntitySpec broken;

    private AdminFixture() throws Exception {
        ds = TestPostgres.dataSource();
        hash = new BCryptPasswordEncoder(4).encode(ADMIN_PASSWORD);
        config = configWith("");
        customer = config.entity("customer").toEntitySpec();
        account = config.entity("account").toEntitySpec();
        EntityTables.ensure(ds, customer);
        EntityTables.ensure(ds, account);
        broken = config.entity("broken").toEntitySpec();
        EntityTables.ensure(ds, broken);
        Scd2Writer w = new Scd2Writer(ds);
        w.apply(customer, List.of(
                cust(1, "2025-01-01T00:00:00Z", "C1", "a@x.io", "Paris", 1L),
                cust(2, "2025-02-01T00:00:00Z", "C1", "a@x.io", "Lyon", 2L),
                del(3, "2025-03-01T00:00:00Z", Map.of("customer_id", "C1")),
                cust(4, "2025-04-01T00:00:00Z", "C1", "b@x.io", "Lyon", 3L),
                cust(5, "2025-01-15T00:00:00Z", "C2", XSS, "Rome", 5L),
                cust(6, "2025-02-15T00:00:00Z", "C3", "c@x.io", null, null)));
        w.apply(account, List.of(
                acct(11, "2025-01-05T00:00:00Z", "eu", 7, "active"),
                acct(12, "2025-01-10T00:00:00Z", "eu", 7, "suspended"),
                acct(13, "2025-01-06T00:00:00Z", "eu", 8, "active"),
                acct(14, "2025-01-07T00:00:00Z", "us", 7, "active")));
        // nine days older than the key's newest event, beyond the one-day horizon: quarantined
        w.apply(account, List.of(acct(15, "2025-01-01T00:00:00Z", "eu", 7, "closed")));
        Map<String, Object> b1 = new LinkedHashMap<>(Map.of("id", "B1", "v", "a"));
        Map<String, Object> b2 = new LinkedHashMap<>(Map.of("id", "B1", "v", "b"));
        w.apply(broken, List.of(Event.upsert(Instant.parse("2025-01-01T00:00:00Z"), b1, 21, Source.kafka("t.broken", 0, 21)),
                Event.upsert(Instant.parse("2025-01-10T00:00:00Z"), b2, 22, Source.kafka("t.broken", 0, 22))));
        try (Connection c = ds.getConnection(); java.sql.Statement s = c.createStatement()) {
            // a hand edit the writer would never make: the first version now ends two days after the second starts
            s.executeUpdate("UPDATE ui_broken SET valid_to = '2025-01-12T00:00:00Z' WHERE valid_from = '2025-01-01T00:00:00Z'");
        }
        try (Connection c = ds.getConnection()) {
            SinkBatches.record(c, new SinkBatch("g", "customer", "dimstream.customer.changes", 0, 0, 4, 4,
                    ApplyResult.builder().received(4).newKeys(2).changed(1).deleted(1).rowsInserted(5).rowsUpdated(2).build(), 0, 12, 3L));
            SinkBatches.record(c, new SinkBatch("g", "customer", "dimstream.customer.changes", 1, 0, 2, 2,
                    ApplyResult.builder().received(2).newKeys(1).late(1).rowsInserted(2).build(), 1, 8, 5L));
        }
    }

    /**
     * The test config with more {@code admin:} keys (indented lines such as
     * {@code "  trusted-proxies: [127.0.0.1]\n"}): the same entities and accounts.
     */
    DimstreamConfig configWith(String moreAdminLines) {
        return configWith("", moreAdminLines);
    }

    /** As {@link #configWith(String)}, with more entity items (lines indented as the others, "  - name: ...") first. */
    DimstreamConfig configWith(String moreEntityItems, String moreAdminLines) {
        String yaml = YAML.formatted(hash).replace("entities:\n", "entities:\n" + moreEntityItems);
        return DimstreamConfig.parse(yaml + moreAdminLines, "test config", ENV);
    }

    private static final String YAML = """
                postgres: {url: embedded}
                entities:
                  - name: customer
                    topic: crm.customers
                    table: ui_customer
                    key: [customer_id]
                    tracked: [email, city]
                    type1: [last_login]
                    lateness-horizon: unlimited
                    columns: {customer_id: text, email: text, city: text, last_login: bigint}
                  - name: account
                    topic: bank.accounts
                    table: ui_account
                    key: [region, account_no]
                    tracked: [status]
                    lateness-horizon: P1D
                    columns: {region: text, account_no: bigint, status: text}
                  - name: broken
                    topic: t.broken
                    table: ui_broken
                    key: [id]
                    tracked: [v]
                    lateness-horizon: unlimited
                    columns: {id: text, v: text}
                admin:
                  users:
                    - {name: alice, role: admin, password-hash: "%s"}
                    - {name: victor, role: viewer, password: "${VIEWER_PW}"}
                  api-tokens:
                    - {name: airflow, role: admin, token: "${ADMIN_TOKEN}"}
                    - {name: grafana, role: viewer, token: "${VIEWER_TOKEN}"}
                """;

    static synchronized AdminFixture get() {
        if (instance == null) {
            try {
                instance = new AdminFixture();
            } catch (Exception e) {
                throw new IllegalStateException("loading the admin test data failed", e);
            }
        }
        return instance;
    }

    static Event cust(long seq, String t, String id, String email, String city, Long lastLogin) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("customer_id", id);
        d.put("email", email);
        d.put("city", city);
        d.put("last_login", lastLogin);
        return Event.upsert(Instant.parse(t), d, seq, Source.kafka("crm.customers", 0, seq));
    }

    static Event del(long seq, String t, Map<String, Object> key) {
        return Event.delete(Instant.parse(t), key, seq, Source.kafka("crm.customers", 0, seq));
    }

    static Event acct(long seq, String t, String region, long no, String status) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("region", region);
        d.put("account_no", no);
        d.put("status", status);
        return Event.upsert(Instant.parse(t), d, seq, Source.kafka("bank.accounts", 1, seq));
    }

    static List<String> list(String... s) {
        return new ArrayList<>(List.of(s));
    }
}
