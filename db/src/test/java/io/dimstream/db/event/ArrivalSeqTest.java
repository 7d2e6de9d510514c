package io.dimstream.db.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class ArrivalSeqTest {

    private static final Instant RUN = Instant.parse("2026-12-02T05:00:00Z");

    @Test
    void eachFactoryGivesItsExactValue() {
        assertThat(ArrivalSeq.ofChangesOffset(0).value()).isEqualTo(0L);
        assertThat(ArrivalSeq.ofChangesOffset(41).value()).isEqualTo(41L);
        assertThat(ArrivalSeq.ofReplay(0).value()).isEqualTo(-4_611_686_018_427_387_904L);
        assertThat(ArrivalSeq.ofReplay(41).value()).isEqualTo(-4_611_686_018_427_387_863L);
        assertThat(ArrivalSeq.ofReplay((1L << 62) - 1).value()).isEqualTo(-1L);
        // 218,350,800 s after 2020-01-01 in the high half, the line in the low half
        assertThat(ArrivalSeq.ofLoad(RUN, 7).value()).isEqualTo(937_809_545_055_436_807L);
        assertThat(ArrivalSeq.ofLoad(RUN.plusMillis(999), 7).value()).isEqualTo(937_809_545_055_436_807L);
        assertThat(ArrivalSeq.ofLoad(RUN.plusSeconds(1), 1).value()).isEqualTo(937_809_549_350_404_097L);
        assertThat(ArrivalSeq.ofLoad(Instant.parse("2020-01-01T00:00:01Z"), 1).value()).isEqualTo(4_294_967_297L);
        assertThat(ArrivalSeq.ofLoad(Instant.parse("2020-01-01T00:00:00Z"), 3).value()).isEqualTo(3L);
        assertThat(ArrivalSeq.ofLoad(Instant.parse("2088-01-19T03:14:07Z"), 0xFFFF_FFFFL).value()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void replayBelowSinkBelowLoadAndEachPathInItsOwnOrder() {
        List<ArrivalSeq> expected = List.of(
                ArrivalSeq.ofReplay(0),
                ArrivalSeq.ofReplay(41),
                ArrivalSeq.ofReplay((1L << 62) - 1),
                ArrivalSeq.ofChangesOffset(0),
                ArrivalSeq.ofChangesOffset(41),
                ArrivalSeq.ofChangesOffset(4_294_967_296L),
                ArrivalSeq.ofLoad(Instant.parse("2020-01-01T00:00:01Z"), 1),
                ArrivalSeq.ofChangesOffset(900_000_000_000_000_000L),
                ArrivalSeq.ofLoad(RUN, 1),
                ArrivalSeq.ofLoad(RUN, 7),
                ArrivalSeq.ofLoad(RUN.plusSeconds(1), 1));
        List<ArrivalSeq> shuffled = new ArrayList<>(expected);
        Collections.reverse(shuffled);
        Collections.swap(shuffled, 0, 5);
        Collections.sort(shuffled);
        assertThat(shuffled).containsExactlyElementsOf(expected);
    }

    @Test
    void aLoadWinsOverEveryOffsetBelowItsSeqEvenOneTheSinkReadLater() {
        ArrivalSeq load = ArrivalSeq.ofLoad(RUN, 1);
        assertThat(load).isGreaterThan(ArrivalSeq.ofChangesOffset(937_809_545_055_436_800L));
        assertThat(load).isLessThan(ArrivalSeq.ofChangesOffset(937_809_545_055_436_802L));
    }

    @Test
    void aLoadInTheFirstSecondOf2020IsBeatenBySmallOffsets() {
        ArrivalSeq load = ArrivalSeq.ofLoad(Instant.parse("2020-01-01T00:00:00.500Z"), 3);
        assertThat(load).isGreaterThan(ArrivalSeq.ofChangesOffset(2));
        assertThat(load).isEqualByComparingTo(ArrivalSeq.ofChangesOffset(3));
        assertThat(load).isLessThan(ArrivalSeq.ofChangesOffset(4));
    }

    @Test
    void valuesOutsideTheSchemeAreRefused() {
        assertThatThrownBy(() -> ArrivalSeq.ofLoad(Instant.parse("2019-12-31T23:59:59Z"), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("load start 2019-12-31T23:59:59Z is outside the seq scheme (2020-01-01 to 2088-01-19)");
        assertThatThrownBy(() -> ArrivalSeq.requireLoadStart(Instant.parse("2088-01-19T03:14:08Z")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("load start 2088-01-19T03:14:08Z is outside the seq scheme (2020-01-01 to 2088-01-19)");
        assertThat(ArrivalSeq.requireLoadStart(RUN)).isEqualTo(218_350_800L);
        assertThatThrownBy(() -> ArrivalSeq.ofLoad(RUN, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("line 0 is outside the seq scheme (1 to 4294967295)");
        assertThatThrownBy(() -> ArrivalSeq.ofLoad(RUN, 1L << 32))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("line 4294967296 is outside the seq scheme (1 to 4294967295)");
        assertThatThrownBy(() -> ArrivalSeq.ofReplay(1L << 62))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a replayed source offset must be in [0, 2^62), got 4611686018427387904");
        assertThatThrownBy(() -> ArrivalSeq.ofReplay(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a replayed source offset must be in [0, 2^62), got -1");
        assertThatThrownBy(() -> ArrivalSeq.ofChangesOffset(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a changes-topic offset is never negative, got -1");
    }
}
