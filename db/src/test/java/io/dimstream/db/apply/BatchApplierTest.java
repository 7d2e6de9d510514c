package io.dimstream.db.apply;

import static io.dimstream.db.jobs.JobsFixtures.up;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeModifier;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.jobs.JobsFixtures;
import io.dimstream.db.jobs.ShadowTables;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.EvolvedColumns;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkReject;
import io.dimstream.db.sink.SinkRejects;
import io.dimstream.db.sql.Sql;
import io.dimstream.db.testing.TestPostgres;
import io.dimstream.db.write.ApplyResult;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ErasedKeys;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The one apply pipeline ({@link BatchApplier}) on its own: steps in order in one transaction with
 * the position, deletes of what is live at an instant, the position stopping a batch before or after
 * its rows, a value PostgreSQL refuses isolated and kept with its SQL state, a column added before
 * the events that carry it, and a shadow made to hold the shape. Whole tables against the reference
 * model; what the applier returns compared as whole values.
 */
class BatchApplierTest {

    private static final Instant T0 = Instant.parse("2025-08-01T00:00:00Z");

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    /** A source's steps with each refused event kept as a reject of partition 0 at its offset. */
    record Steps(List<Step> steps, String entity) implements Prepared {
        @Override
        public List<SinkReject> rejects() {
            return List.of();
        }

        @Override
        public List<SinkReject> refused(Rejection r) {
            return List.of(new SinkReject(new PartitionRef("changes", 0), r.source().offset(), entity, r.reason(), r.sqlState(), null, null));
        }
    }

    /** A position that records what it was asked, and stops where told. */
    static final class Recorded implements Position<String> {
        final List<Applied<?>> advanced = new ArrayList<>();
        final String stopAtLock;
        final String stopAtAdvance;

        Recorded(String stopAtLock, String stopAtAdvance) {
            this.stopAtLock = stopAtLock;
            this.stopAtAdvance = stopAtAdvance;
        }

        @Override
        public String lock(Connection c) {
            return stopAtLock;
        }

        @Override
        public String advance(Connection c, Applied<?> applied) {
            advanced.add(applied);
            return stopAtAdvance;
        }

        @Override
        public String rejectsGroup() {
            return "batch-applier-test";
        }
    }

    @Test
    void stepsRunInOrderInOneTransactionAndTheCountsComeBackAsValues() throws SQLException {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "applier_steps", Optional.empty());
        BatchApplier applier = new BatchApplier(ds, writer, EntityShapes.of(ds, spec));
        Event c1 = up("C1", 0, "a@x", "Oslo", 1, 1);
        Event c2 = up("C2", 0, "b@x", "Rome", 1, 2);
        Event c1Back = up("C1", 6, "a@x", "Oslo", 2, 4);
        Instant truncateAt = T0.plusSeconds(5 * 86_400);
        Step.DeleteLiveAt truncate = new Step.DeleteLiveAt(Step.LiveAt.at(truncateAt), 3, Source.kafka("crm", 0, 3L), Step.KeyFilter.ALL,
                "a truncate");
        Steps steps = new Steps(List.of(new Step.Events(List.of(c1, c2)), truncate, new Step.Events(List.of(c1Back))), spec.name());
        Recorded position = new Recorded(null, null);

        Outcome<Steps, String> out = applier.apply(Batch.of(spec.name(), WriterLock.Mode.EXCLUSIVE, shape -> steps, "a batch"), position);

        Applied<Steps> applied = ((Outcome.Done<Steps, String>) out).applied();
        assertThat(applied.events()).isEqualTo(ApplyResult.builder().received(3).newKeys(2).changed(1).rowsInserted(3).rowsUpdated(1).build());
        assertThat(applied.deletes()).isEqualTo(ApplyResult.builder().received(2).deleted(2).rowsInserted(2).rowsUpdated(2).build());
        assertThat(applied.rejects()).isEmpty();
        assertThat(applied.isolated()).isFalse();
        assertThat(position.advanced).containsExactly(applied);
        List<Event> asOne = List.of(c1, c2, Event.delete(truncateAt, Map.of("customer_id", "C1"), 3, Source.kafka("crm", 0, 3L)),
                Event.delete(truncateAt, Map.of("customer_id", "C2"), 3, Source.kafka("crm", 0, 3L)), c1Back);
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(asOne));
    }

    @Test
    void aPositionThatStopsAtItsLockOrItsAdvanceLeavesNothingWritten() throws SQLException {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "applier_stop", Optional.empty());
        BatchApplier applier = new BatchApplier(ds, writer, EntityShapes.of(ds, spec));
        Steps steps = new Steps(List.of(new Step.Events(List.of(up("C1", 0, "a@x", "Oslo", 1, 1)))), spec.name());

        Recorded fencedAtLock = new Recorded("fenced", null);
        assertThat(applier.apply(Batch.of(spec.name(), WriterLock.Mode.STREAMING, shape -> steps, "a batch"), fencedAtLock))
                .isEqualTo(new Outcome.Stopped<Steps, String>("fenced"));
        assertThat(fencedAtLock.advanced).isEmpty();

        Recorded fencedAtAdvance = new Recorded(null, "moved meanwhile");
        assertThat(applier.apply(Batch.of(spec.name(), WriterLock.Mode.STREAMING, shape -> steps, "a batch"), fencedAtAdvance))
                .isEqualTo(new Outcome.Stopped<Steps, String>("moved meanwhile"));
        assertThat(EntityTableReader.rows(ds, spec)).isEmpty();
    }

    @Test
    void aValuePostgresRefusesIsIsolatedAndKeptWithItsSqlStateAndTheRestLands() throws SQLException {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "applier_refused", Optional.empty());
        execute("ALTER TABLE " + Sql.table(spec.table()) + " ADD CONSTRAINT no_poison CHECK (city <> 'Poison')");
        BatchApplier applier = new BatchApplier(ds, writer, EntityShapes.of(ds, spec));
        Event good = up("C1", 0, "a@x", "Oslo", 1, 1);
        Event poison = up("C2", 0, "b@x", "Poison", 1, 2);
        Event alsoGood = up("C3", 0, "c@x", "Rome", 1, 3);
        Steps steps = new Steps(List.of(new Step.Events(List.of(good, poison, alsoGood))), spec.name());
        Recorded position = new Recorded(null, null);

        Outcome<Steps, String> out = applier.apply(Batch.of(spec.name(), WriterLock.Mode.STREAMING, shape -> steps, "a batch"), position);

        Applied<Steps> applied = ((Outcome.Done<Steps, String>) out).applied();
        String reason = "PostgreSQL refused the event: ERROR: new row for relation \"" + spec.table() + "\" violates check constraint "
                + "\"no_poison\"";
        assertThat(applied.isolated()).isTrue();
        assertThat(applied.rejects()).usingRecursiveFieldByFieldElementComparator().containsExactly(
                new SinkReject(new PartitionRef("changes", 0), 2, spec.name(), reason, "23514", null, null));
        assertThat(SinkRejects.recent(ds, spec.name(), 10, 0)).extracting(r -> List.of(r.consumerGroup(), r.topic(), r.partition(),
                        r.offset(), r.entity(), r.reason(), r.sqlState()))
                .containsExactly(List.of("batch-applier-test", "changes", 0, 2L, spec.name(), reason, "23514"));
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(List.of(good, alsoGood)));
    }

    @Test
    void aColumnTheBatchNeedsIsAddedBeforeItsEventsAndAShadowIsMadeToHoldIt() throws SQLException {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "applier_shape", Optional.empty());
        EntityShapes shapes = EntityShapes.of(ds, spec);
        BatchApplier applier = new BatchApplier(ds, writer, shapes);
        EntitySpec shadow = ShadowTables.shadowSpec(spec, 1);
        ShadowTables.create(ds, shadow);
        Event withNickname = withNickname(up("C1", 0, "a@x", "Oslo", 1, 1), "Al");
        ShapeChange nickname = new ShapeChange(List.of(new EvolvedColumns.NewColumn("nickname", ColumnType.TEXT, true, "crm-0@1")),
                List.of());

        applier.apply(new Batch<>(spec.name(), null, nickname, WriterLock.Mode.STREAMING,
                shape -> new Steps(List.of(new Step.Events(List.of(withNickname))), spec.name()), "a batch"), new Recorded(null, null));
        Outcome<Steps, String> intoShadow = applier.apply(new Batch<>(spec.name(), shadow, ShapeChange.NONE, WriterLock.Mode.NONE,
                shape -> new Steps(List.of(new Step.Events(List.of(withNickname))), spec.name()), "a shadow batch"), new Recorded(null, null));

        EntitySpec evolved = spec.withEvolvedColumn("nickname", ColumnType.TEXT, true);
        assertThat(shapes.current(spec.name())).isEqualTo(evolved);
        assertThat(((Outcome.Done<Steps, String>) intoShadow).applied().shape()).isEqualTo(evolved.withTable(shadow.table()));
        assertThat(EntityTableReader.rows(ds, evolved)).isEqualTo(new ReferenceModel(evolved).rows(List.of(withNickname)));
        assertThat(EntityTableReader.rows(ds, evolved.withTable(shadow.table())))
                .isEqualTo(new ReferenceModel(evolved).rows(List.of(withNickname)));
    }

    @Test
    void aColumnOnlyErasedKeysCarryIsNotAddedAndOneOtherKeysCarryTooNamesTheirEvent() throws SQLException {
        EntitySpec spec = JobsFixtures.ensuredCustomer(ds, "applier_erased_carrier", Optional.empty());
        execute("DELETE FROM dimstream.erased_keys WHERE entity = '" + spec.name() + "'");
        execute("DELETE FROM dimstream.entity_columns WHERE entity = '" + spec.name() + "'");
        try (Connection c = ds.getConnection()) {
            ErasedKeys.remember(c, spec.name(), List.of(List.of("C9")));
        }
        EntityShapes shapes = EntityShapes.of(ds, spec);
        BatchApplier applier = new BatchApplier(ds, writer, shapes);
        Event erasedNickname = withNickname(up("C9", 0, "z@x", "Oslo", 1, 1), "Zed");
        Event erasedTier = withField(up("C9", 1, "z@x", "Oslo", 1, 2), "tier", "gold");
        Event keptTier = withField(up("C1", 1, "a@x", "Rome", 1, 3), "tier", "silver");
        ShapeChange change = new ShapeChange(List.of(
                new EvolvedColumns.NewColumn("nickname", ColumnType.TEXT, true, "crm-0@1"),
                new EvolvedColumns.NewColumn("tier", ColumnType.TEXT, true, "crm-0@2")), List.of(), Map.of(
                "nickname", List.of(new ShapeChange.Carrier(List.of("C9"), "crm-0@1")),
                "tier", List.of(new ShapeChange.Carrier(List.of("C9"), "crm-0@2"), new ShapeChange.Carrier(List.of("C1"), "crm-0@3"))));

        Outcome<Steps, String> out = applier.apply(new Batch<>(spec.name(), null, change, WriterLock.Mode.STREAMING,
                shape -> new Steps(List.of(new Step.Events(List.of(erasedNickname, erasedTier, keptTier))), spec.name()), "a batch"),
                new Recorded(null, null));

        // the erased key's event with the column that was not added is not refused for it: it is dropped as erased
        ApplyResult result = ((Outcome.Done<Steps, String>) out).applied().result();
        assertThat(result.rejected()).isEmpty();
        assertThat(List.of(result.received(), result.erased(), result.newKeys())).containsExactly(3, 2, 1);

        EntitySpec withTier = spec.withEvolvedColumn("tier", ColumnType.TEXT, true);
        assertThat(shapes.current(spec.name())).isEqualTo(withTier);
        assertThat(EvolvedColumns.list(ds, spec.name())).extracting(EvolvedColumns.Column::column, EvolvedColumns.Column::firstSource)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("tier", "crm-0@3"));
        assertThat(EntityTableReader.rows(ds, withTier)).isEqualTo(new ReferenceModel(withTier).rows(List.of(keptTier)));
    }

    @Test
    void aWideningOnlyAnErasedKeysEventAsksForIsNotMadeAndOneAnotherKeyAsksForTooNamesItsEvent() throws SQLException {
        EntitySpec config = JobsFixtures.customer("applier_erased_widening", Optional.empty());
        EntitySpec spec = config.withColumnType("city", TypeWidening.ColumnDef.of(new TypeModifier.Length(10)));
        EntityTables.ensure(ds, spec);
        try (Connection c = ds.getConnection()) {
            ErasedKeys.remember(c, spec.name(), List.of(List.of("C9")));
        }
        EntityShapes shapes = EntityShapes.of(ds, spec);
        BatchApplier applier = new BatchApplier(ds, writer, shapes);
        TypeWidening.ColumnDef wide = TypeWidening.ColumnDef.of(new TypeModifier.Length(40));
        EvolvedColumns.Widening byErased = new EvolvedColumns.Widening("city", wide, "crm-0@1");
        Event erasedLong = up("C9", 0, "z@x", "Reykjavik-Hofudborgarsvaedid", 1, 1);
        Event kept = up("C1", 0, "a@x", "Oslo", 1, 2);

        Outcome<Steps, String> first = applier.apply(new Batch<>(spec.name(), null,
                new ShapeChange(List.of(), List.of(byErased), Map.of(), Map.of(byErased, new ShapeChange.Carrier(List.of("C9"), "crm-0@1"))),
                WriterLock.Mode.STREAMING, shape -> new Steps(List.of(new Step.Events(List.of(erasedLong, kept))), spec.name()), "a batch"),
                new Recorded(null, null));

        ApplyResult result = ((Outcome.Done<Steps, String>) first).applied().result();
        assertThat(result.rejected()).isEmpty();
        assertThat(List.of(result.received(), result.erased(), result.newKeys())).containsExactly(2, 1, 1);
        assertThat(shapes.current(spec.name())).isEqualTo(spec);
        assertThat(EvolvedColumns.list(ds, spec.name())).isEmpty();
        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(new ReferenceModel(spec).rows(List.of(kept)));

        // the same widening asked for by the erased key and by C1: made, the catalog naming C1's event
        EvolvedColumns.Widening byKept = new EvolvedColumns.Widening("city", wide, "crm-0@4");
        Event keptLong = up("C1", 1, "a@x", "Kristiansand-Sentrum", 1, 4);
        applier.apply(new Batch<>(spec.name(), null, new ShapeChange(List.of(), List.of(byErased, byKept), Map.of(), Map.of(
                        byErased, new ShapeChange.Carrier(List.of("C9"), "crm-0@1"), byKept, new ShapeChange.Carrier(List.of("C1"), "crm-0@4"))),
                WriterLock.Mode.STREAMING, shape -> new Steps(List.of(new Step.Events(List.of(erasedLong, keptLong))), spec.name()),
                "a batch"), new Recorded(null, null));

        EntitySpec widened = spec.withColumnType("city", wide);
        assertThat(shapes.current(spec.name())).isEqualTo(widened);
        assertThat(EvolvedColumns.list(ds, spec.name())).extracting(EvolvedColumns.Column::column, EvolvedColumns.Column::firstSource)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("city", "crm-0@4"));
        assertThat(EntityTableReader.rows(ds, widened)).isEqualTo(new ReferenceModel(widened).rows(List.of(kept, keptLong)));
    }

    private static Event withField(Event e, String field, String value) {
        Map<String, Object> data = new LinkedHashMap<>(e.data());
        data.put(field, value);
        return Event.upsert(e.eventTime(), data, e.seq(), e.source());
    }

    private static Event withNickname(Event e, String nickname) {
        Map<String, Object> data = new LinkedHashMap<>(e.data());
        data.put("nickname", nickname);
        return Event.upsert(e.eventTime(), data, e.seq(), e.source());
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
