package io.dimstream.db.jobs;

import static io.dimstream.db.jobs.JobsFixtures.up;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.MemoryPruner;
import io.dimstream.db.write.Scd2Writer;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** Applying a quarantined event anyway, or discarding it: the table, the quarantine row and the audit entry. */
class QuarantineActionsTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);
    private final MemoryPruner pruner = new MemoryPruner(ds);
    private final QuarantineActions actions = new QuarantineActions(ds, writer);

    private EntitySpec fresh() throws SQLException {
        return JobsFixtures.ensuredCustomer(ds, "quarantine", Optional.of(Duration.ofDays(30)));
    }

    private long pendingId(EntitySpec spec) throws SQLException {
        List<QuarantineActions.QuarantinedEvent> q = actions.list(spec.name(), "pending", null, 10);
        assertThat(q).hasSize(1);
        return q.get(0).id();
    }

    @Test
    void applyAnywayPlacesAnEventBeyondTheHorizonExactlyAndAuditsTheUser() throws SQLException {
        EntitySpec spec = fresh();
        Event first = up("C1", 0, "a@x", "Oslo", 1, 1);
        Event newest = up("C1", 100, "b@x", "Rome", 2, 2);
        Event old = up("C1", 40, "c@x", "Bern", 3, 3); // 60 days older than the newest: beyond P30D
        writer.apply(spec, List.of(first, newest));
        ApplyResult r = writer.apply(spec, List.of(old));
        assertThat(r.quarantined()).isEqualTo(1);
        long id = pendingId(spec);

        ApplyResult applied = actions.apply(id, spec, "alice");

        assertThat(applied.late()).isEqualTo(1);
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(List.of(first, newest, old)));
        QuarantineActions.QuarantinedEvent q = actions.find(id).orElseThrow();
        assertThat(List.of(q.status(), q.resolvedBy())).isEqualTo(List.of("applied", "alice"));
        assertThat(JobsFixtures.query(ds, "SELECT actor, action, detail->>'entity', detail->>'rows_inserted' FROM dimstream.admin_audit "
                + "WHERE target = ?", "quarantine:" + id)).isEqualTo(List.of(List.of("alice", "quarantine.apply", spec.name(), "1")));
        assertThatThrownBy(() -> actions.apply(id, spec, "alice")).hasMessageStartingWith("quarantine: event " + id + " is already applied");
    }

    @Test
    void anEventAtOrBeforeThePrunePointIsRefusedAndStaysPending() throws SQLException {
        EntitySpec spec = fresh();
        List<Event> history = List.of(up("C2", 0, "a@x", "Oslo", 1, 1), up("C2", 5, "b@x", "Oslo", 1, 2),
                up("C2", 100, "c@x", "Rome", 1, 3));
        writer.apply(spec, history);
        assertThat(pruner.prune(spec)).isEqualTo(1); // day 0 goes; day 5 stays as the anchor (prune point)
        List<?> before = JobsFixtures.wholeRows(ds, spec.table());
        writer.apply(spec, List.of(up("C2", 3, "d@x", "Bern", 1, 4)));
        long id = pendingId(spec);

        assertThatThrownBy(() -> actions.apply(id, spec, "alice"))
                .isInstanceOf(QuarantineActions.NotApplicableException.class)
                .hasMessageContaining("is at or before its key's prune point");

        assertThat(JobsFixtures.wholeRows(ds, spec.table())).isEqualTo(before);
        assertThat(actions.find(id).orElseThrow().status()).isEqualTo("pending");
        assertThat(JobsFixtures.query(ds, "SELECT count(*) FROM dimstream.admin_audit WHERE target = ?", "quarantine:" + id))
                .isEqualTo(List.of(List.of(0L)));
    }

    @Test
    void discardLeavesTheTableAndRecordsWhoDiscardedIt() throws SQLException {
        EntitySpec spec = fresh();
        writer.apply(spec, List.of(up("C3", 0, "a@x", "Oslo", 1, 1), up("C3", 100, "b@x", "Rome", 1, 2)));
        writer.apply(spec, List.of(up("C3", 10, "z@x", "Nowhere", 1, 3)));
        long id = pendingId(spec);
        List<String> before = JobsFixtures.wholeRows(ds, spec.table());

        actions.discard(id, spec.name(), "bob");

        assertThat(JobsFixtures.wholeRows(ds, spec.table())).isEqualTo(before);
        QuarantineActions.QuarantinedEvent q = actions.find(id).orElseThrow();
        assertThat(List.of(q.status(), q.resolvedBy())).isEqualTo(List.of("discarded", "bob"));
        assertThat(JobsFixtures.query(ds, "SELECT actor, action FROM dimstream.admin_audit WHERE target = ?", "quarantine:" + id))
                .isEqualTo(List.of(List.of("bob", "quarantine.discard")));
        assertThatThrownBy(() -> actions.discard(id, "other_entity", "bob"))
                .hasMessage("quarantine: event " + id + " belongs to entity " + spec.name() + ", not other_entity");
    }
}
