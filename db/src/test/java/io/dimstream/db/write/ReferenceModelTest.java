package io.dimstream.db.write;

import static io.dimstream.db.write.Fixtures.del;
import static io.dimstream.db.write.Fixtures.deleted;
import static io.dimstream.db.write.Fixtures.up;
import static io.dimstream.db.write.Fixtures.version;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The reference model itself, against the worked example and hand-written histories (no database). */
class ReferenceModelTest {

    private final EntitySpec people = Fixtures.people("people", "people", Optional.empty());
    private final ReferenceModel model = new ReferenceModel(people);

    @Test
    void ydbExampleDeliveredOutOfOrderGivesTheExpectedFileExactly() {
        EntitySpec ydb = Fixtures.ydb("customer", "customer");

        List<ExpectedRow> rows = new ReferenceModel(ydb).rows(Fixtures.ydbEvents());

        assertThat(rows).isEqualTo(Fixtures.ydbExpected(ydb));
    }

    @Test
    void ydbExampleGivesTheSameRowsInAnyDeliveryOrder() {
        EntitySpec ydb = Fixtures.ydb("customer", "customer");
        List<Event> reversed = new ArrayList<>(Fixtures.ydbEvents());
        Collections.reverse(reversed);

        assertThat(new ReferenceModel(ydb).rows(reversed)).isEqualTo(Fixtures.ydbExpected(ydb));
    }

    @Test
    void lateEventInsideVersionSplitsIt() {
        List<Event> events = List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),
                up(2, 5, "P1", "Ann", "Rome", 2L),
                up(3, 3, "P1", "Ann", "Bern", 3L));

        assertThat(model.rows(events)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", "Bern", 3L, 3, 5),
                version("P1", "Ann", "Rome", 2L, 5, null)));
    }

    @Test
    void lateEventBeforeReassertionEndsWhereReassertionBegins() {
        List<Event> events = List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),
                up(2, 5, "P1", "Ann", "Oslo", 2L),
                up(3, 3, "P1", "Ann", "Bern", 3L));

        assertThat(model.rows(events)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", "Bern", 3L, 3, 5),
                version("P1", "Ann", "Oslo", 2L, 5, null)));
    }

    @Test
    void reassertionKeepsOneVersionWithTheLastType1Values() {
        List<Event> events = List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),
                up(2, 3, "P1", "Ann", "Oslo", 7L),
                up(3, 2, "P1", "Ann", "Oslo", 5L));

        assertThat(model.rows(events)).isEqualTo(List.of(version("P1", "Ann", "Oslo", 7L, 1, null)));
    }

    @Test
    void deleteThenResurrection() {
        List<Event> events = List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),
                del(2, 2, "P1"),
                del(3, 3, "P1"),
                up(4, 4, "P1", "Ann", "Oslo", 4L));

        assertThat(model.rows(events)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                deleted("P1", "Ann", "Oslo", 1L, 2, 4),
                version("P1", "Ann", "Oslo", 4L, 4, null)));
    }

    @Test
    void deleteWithNoEarlierVersionLeavesNoRow() {
        assertThat(model.rows(List.of(del(1, 2, "P1")))).isEmpty();
        assertThat(model.rows(List.of(del(1, 2, "P1"), up(2, 3, "P1", "Ann", "Oslo", 1L))))
                .isEqualTo(List.of(version("P1", "Ann", "Oslo", 1L, 3, null)));
    }

    @Test
    void deleteWithNoEarlierVersionIsRememberedWhenAnEarlierUpsertArrivesLater() {
        List<Event> events = List.of(del(1, 2, "P1"), up(2, 1, "P1", "Ann", "Oslo", 1L));

        assertThat(model.rows(events)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                deleted("P1", "Ann", "Oslo", 1L, 2, null)));
    }

    @Test
    void sameTimeTieLaterArrivalWinsWhateverTheDeliveryOrder() {
        Event first = up(1, 1, "P1", "Ann", "Oslo", 1L);
        Event second = up(2, 1, "P1", "Ann", "Rome", 2L);
        List<ExpectedRow> expected = List.of(version("P1", "Ann", "Rome", 2L, 1, null));

        assertThat(model.rows(List.of(first, second))).isEqualTo(expected);
        assertThat(model.rows(List.of(second, first))).isEqualTo(expected);
    }

    @Test
    void sameTimeTieDeleteReplacesTheUpsertEntirely() {
        List<Event> events = List.of(up(1, 1, "P1", "Ann", "Oslo", 1L), up(2, 2, "P1", "Ann", "Rome", 1L), del(3, 2, "P1"));

        assertThat(model.rows(events)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                deleted("P1", "Ann", "Oslo", 1L, 2, null)));
    }

    @Test
    void exactDuplicateChangesNothing() {
        Event e = up(1, 1, "P1", "Ann", "Oslo", 1L);

        assertThat(model.rows(List.of(e, e, e))).isEqualTo(model.rows(List.of(e)));
    }

    @Test
    void twoDifferentEventsWithOneSeqAndTimeAreRefusedAsBadTestData() {
        assertThatThrownBy(() -> model.rows(List.of(up(1, 1, "P1", "Ann", "Oslo", 1L), up(1, 1, "P1", "Bob", "Oslo", 1L))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("share seq 1");
    }

    @Test
    void keysAreIndependentAndRowsComeOrderedByKeyThenValidFrom() {
        List<Event> events = List.of(
                up(1, 2, "P2", "Bob", "Rome", null),
                up(2, 1, "P1", "Ann", "Oslo", 1L),
                up(3, 3, "P1", "Ann", null, 1L));

        assertThat(model.rows(events)).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 3),
                version("P1", "Ann", null, 1L, 3, null),
                version("P2", "Bob", "Rome", null, 2, null)));
    }

    @Test
    void nullAndEmptyStringAreDifferentStates() {
        List<Event> events = List.of(up(1, 1, "P1", "Ann", null, 1L), up(2, 2, "P1", "Ann", "", 1L));

        assertThat(model.rows(events)).isEqualTo(List.of(
                version("P1", "Ann", null, 1L, 1, 2),
                version("P1", "Ann", "", 1L, 2, null)));
    }

    @Test
    void eventsTheValidatorRejectsAreNotPartOfAnyHistory() {
        List<Event> events = List.of(up(1, 1, "P1", "Ann", "Oslo", 1L), up(2, 2, null, "Bob", "Rome", 1L));

        assertThat(model.rows(events)).isEqualTo(List.of(version("P1", "Ann", "Oslo", 1L, 1, null)));
    }

    // ---- in arrival order, with a finite lateness horizon ----

    private final ReferenceModel horizon30 = new ReferenceModel(Fixtures.people("people", "people", Optional.of(Duration.ofHours(30))));

    @Test
    void anEventArrivingAfterAMuchNewerOneIsQuarantinedAndTheEarlierEventAtItsTimeStays() {
        ReferenceModel.Outcome o = horizon30.inArrivalOrder(List.of(
                up(1, 10, "P1", "Ann", "Oslo", 1L),
                up(2, 100, "P1", "Ann", "Rome", 2L),
                up(3, 10, "P1", "Ann", "Bern", 3L)));

        assertThat(o.rows()).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 10, 100),
                version("P1", "Ann", "Rome", 2L, 100, null)));
        assertThat(o.quarantine()).containsExactly(new ReferenceModel.Quarantined(List.of("P1"), Fixtures.h(10), 3, Fixtures.h(100)));
        assertThat(o.counts()).isEqualTo(new ReferenceModel.Counts(1, 1, 0, 0, 0, 0, 1));
    }

    @Test
    void anExactRepeatOfAnAppliedEventIsADuplicateWhateverTheHorizon() {
        ReferenceModel.Outcome o = horizon30.inArrivalOrder(List.of(
                up(1, 10, "P1", "Ann", "Oslo", 1L),
                up(2, 100, "P1", "Ann", "Rome", 2L),
                up(3, 10, "P1", "Ann", "Oslo", 1L)));

        assertThat(o.quarantine()).isEmpty();
        assertThat(o.counts()).isEqualTo(new ReferenceModel.Counts(1, 1, 0, 0, 0, 1, 0));
    }

    @Test
    void lateAndBeyondAreJudgedAgainstTheNewestAppliedEventAtArrivalAndAQuarantinedEventNeverRaisesIt() {
        ReferenceModel.Outcome o = horizon30.inArrivalOrder(List.of(
                up(1, 100, "P1", "Ann", "Oslo", 1L),
                up(2, 80, "P1", "Ann", "Rome", 2L),   // late, within the horizon of 100
                up(3, 60, "P1", "Ann", "Bern", 3L),   // beyond: 40 hours older than 100
                up(4, 75, "P1", "Ann", "Bern", 4L),   // late
                del(5, 40, "P1")));                   // beyond

        assertThat(o.rows()).isEqualTo(List.of(
                version("P1", "Ann", "Bern", 4L, 75, 80),
                version("P1", "Ann", "Rome", 2L, 80, 100),
                version("P1", "Ann", "Oslo", 1L, 100, null)));
        assertThat(o.quarantine()).containsExactly(
                new ReferenceModel.Quarantined(List.of("P1"), Fixtures.h(40), 5, Fixtures.h(100)),
                new ReferenceModel.Quarantined(List.of("P1"), Fixtures.h(60), 3, Fixtures.h(100)));
        assertThat(o.counts()).isEqualTo(new ReferenceModel.Counts(1, 0, 0, 0, 2, 0, 2));
    }

    @Test
    void anEventsClassIsJudgedAgainstTheEventBeforeItAtItsArrival() {
        // 3 arrives before 2, which has its content: 3 is a change of 1 when it arrives, 2 is late
        ReferenceModel.Outcome o = horizon30.inArrivalOrder(List.of(
                up(1, 1, "P1", "Ann", "Oslo", 1L),
                up(2, 3, "P1", "Ann", "Rome", 2L),
                up(3, 2, "P1", "Ann", "Rome", 3L),
                up(4, 3, "P1", "Ann", "Bern", 4L)));  // replaces 3's content: a change of what was before 3 at its arrival

        assertThat(o.rows()).isEqualTo(List.of(
                version("P1", "Ann", "Oslo", 1L, 1, 2),
                version("P1", "Ann", "Rome", 3L, 2, 3),
                version("P1", "Ann", "Bern", 4L, 3, null)));
        assertThat(o.counts()).isEqualTo(new ReferenceModel.Counts(1, 2, 0, 0, 1, 0, 0));
    }

    @Test
    void withAnUnlimitedHorizonTheRowsInArrivalOrderAreTheOrderFreeRows() {
        List<Event> events = List.of(up(1, 100, "P1", "Ann", "Oslo", 1L), up(2, 1, "P1", "Ann", "Rome", 2L), del(3, 50, "P1"));

        assertThat(model.inArrivalOrder(events).rows()).isEqualTo(model.rows(events));
        assertThat(model.inArrivalOrder(events).quarantine()).isEmpty();
    }
}
