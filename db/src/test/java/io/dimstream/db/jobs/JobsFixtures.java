package io.dimstream.db.jobs;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** A customer-like entity and events for the jobs tests. */
public final class JobsFixtures {

    private static final AtomicInteger N = new AtomicInteger();
    static final Instant T0 = Instant.parse("2025-08-01T00:00:00Z");

    private JobsFixtures() {
    }

    public static EntitySpec customer(String prefix, Optional<Duration> horizon) {
        int n = N.incrementAndGet();
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("customer_id", ColumnType.TEXT);
        cols.put("email", ColumnType.TEXT);
        cols.put("city", ColumnType.TEXT);
        cols.put("last_login", ColumnType.BIGINT);
        return EntitySpec.builder()
                .name(prefix + "_" + n)
                .table(prefix + "_" + n)
                .key(List.of("customer_id"))
                .tracked(List.of("email", "city"))
                .type1(List.of("last_login"))
                .columns(cols)
                .latenessHorizon(horizon)
                .build();
    }

    /** A fresh customer entity with its tables made. */
    public static EntitySpec ensuredCustomer(DataSource ds, String prefix, Optional<Duration> horizon) throws SQLException {
        EntitySpec spec = customer(prefix, horizon);
        EntityTables.ensure(ds, spec);
        return spec;
    }

    public static Event up(String id, int day, String email, String city, long login, long seq) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("customer_id", id);
        d.put("email", email);
        d.put("city", city);
        d.put("last_login", login);
        return Event.upsert(T0.plus(Duration.ofDays(day)), d, seq, Source.kafka("crm", 0, seq));
    }

    static Event del(String id, int day, long seq) {
        return Event.delete(T0.plus(Duration.ofDays(day)), Map.of("customer_id", id), seq, Source.kafka("crm", 0, seq));
    }

    /** Every column of every row (lineage and loaded_at included) as JSON text, in key and valid_from order. */
    static List<String> wholeRows(DataSource ds, String table) throws SQLException {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT to_jsonb(t)::text FROM " + Sql.table(table)
                     + " t ORDER BY customer_id, valid_from");
             ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    public static List<List<Object>> query(DataSource ds, String sql, Object... params) throws SQLException {
        List<List<Object>> out = new ArrayList<>();
        try (Connection c = ds.getConnection(); PreparedStatement p = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                p.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = p.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<Object> row = new ArrayList<>();
                    for (int i = 1; i <= n; i++) {
                        Object v = rs.getObject(i);
                        row.add(v instanceof java.sql.Timestamp ts ? ts.toInstant() : v);
                    }
                    out.add(row);
                }
            }
        }
        return out;
    }
}
