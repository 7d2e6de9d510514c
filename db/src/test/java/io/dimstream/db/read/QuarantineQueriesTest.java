package io.dimstream.db.read;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class QuarantineQueriesTest {

    static final DataSource DS = TestPostgres.dataSource();
    static final Instant Q1 = Instant.parse("2026-01-01T10:00:00Z");
    static final Instant Q2 = Instant.parse("2026-01-01T11:00:00Z");
    static final Instant Q3 = Instant.parse("2026-01-01T12:00:00Z");

    static final QuarantinedEvent A = new QuarantinedEvent(0, "qq_a", "{\"id\": \"K1\"}", Instant.parse("2025-01-01T00:00:00Z"),
            "{\"op\": \"upsert\"}", "beyond the horizon", "t", 0, 5L, Q1, "pending", null, null);
    static final QuarantinedEvent B = new QuarantinedEvent(0, "qq_a", "{\"id\": \"K2\"}", Instant.parse("2025-01-02T00:00:00Z"),
            "{\"op\": \"delete\"}", "at or before the prune point", null, null, null, Q2, "discarded", "alice", Q3);
    static final QuarantinedEvent C = new QuarantinedEvent(0, "qq_b", "{\"id\": \"K1\"}", Instant.parse("2025-01-03T00:00:00Z"),
            "{\"op\": \"upsert\"}", "beyond the horizon", "t", 1, 9L, Q3, "pending", null, null);

    static long idA;
    static long idB;
    static long idC;

    @BeforeAll
    static void insert() throws Exception {
        idA = insert(A, 1);
        idB = insert(B, 2);
        idC = insert(C, 3);
    }

    static long insert(QuarantinedEvent q, long seq) throws Exception {
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "INSERT INTO dimstream.quarantine (entity, event_key, event_time, event, seq, reason, source_topic, source_partition, "
                        + "source_offset, quarantined_at, status, resolved_by, resolved_at) "
                        + "VALUES (?, ?::jsonb, ?, ?::jsonb, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id")) {
            p.setString(1, q.entity());
            p.setString(2, q.eventKey());
            p.setObject(3, q.eventTime().atOffset(java.time.ZoneOffset.UTC));
            p.setString(4, q.event());
            p.setLong(5, seq);
            p.setString(6, q.reason());
            p.setString(7, q.sourceTopic());
            p.setObject(8, q.sourcePartition());
            p.setObject(9, q.sourceOffset());
            p.setObject(10, q.quarantinedAt().atOffset(java.time.ZoneOffset.UTC));
            p.setString(11, q.status());
            p.setString(12, q.resolvedBy());
            p.setObject(13, q.resolvedAt() == null ? null : q.resolvedAt().atOffset(java.time.ZoneOffset.UTC));
            try (var rs = p.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    static QuarantinedEvent withId(QuarantinedEvent q, long id) {
        return new QuarantinedEvent(id, q.entity(), q.eventKey(), q.eventTime(), q.event(), q.reason(), q.sourceTopic(),
                q.sourcePartition(), q.sourceOffset(), q.quarantinedAt(), q.status(), q.resolvedBy(), q.resolvedAt());
    }

    @Test
    void listsNewestFirstFilteredByEntityAndStatus() throws Exception {
        QuarantineQueries q = new QuarantineQueries(DS);
        assertThat(q.list("qq_a", null, 0, 10)).isEqualTo(new QuarantineQueries.Page(List.of(withId(B, idB), withId(A, idA)), false));
        assertThat(q.list("qq_a", QuarantineQueries.Status.PENDING, 0, 10).rows()).containsExactly(withId(A, idA));
        assertThat(q.list("qq_b", QuarantineQueries.Status.DISCARDED, 0, 10).rows()).isEmpty();
    }

    @Test
    void pagesSayWhetherMoreFollow() throws Exception {
        QuarantineQueries q = new QuarantineQueries(DS);
        List<QuarantinedEvent> all = q.list(null, null, 0, 1000).rows().stream()
                .filter(e -> e.entity().startsWith("qq_")).toList();
        assertThat(all).containsExactly(withId(C, idC), withId(B, idB), withId(A, idA));
        assertThat(q.list("qq_a", null, 0, 1)).isEqualTo(new QuarantineQueries.Page(List.of(withId(B, idB)), true));
        assertThat(q.list("qq_a", null, 1, 1)).isEqualTo(new QuarantineQueries.Page(List.of(withId(A, idA)), false));
    }

    @Test
    void anEntityNameHoldingSqlIsJustAValue() throws Exception {
        assertThat(new QuarantineQueries(DS).list("qq_a' OR '1'='1", null, 0, 10).rows()).isEmpty();
    }
}
