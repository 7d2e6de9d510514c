package io.dimstream.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link RestartSeries#longestIdle}: the longest stretch in which a partition had an event waiting
 * (sent, not yet committed) and committed none, from {send, commit} times in nanoseconds.
 */
class RestartSeriesTest {

    private static long[] e(long sendMs, long commitMs) {
        return new long[] {sendMs * 1_000_000, commitMs * 1_000_000};
    }

    @Test
    void aStopWithEventsWaitingCountsFromTheLastCommitOrTheFirstWaitingSendWhicheverIsLater() {
        // commits at 100, 200, then nothing until 9,000 while events sent at 250 and 300 wait
        assertThat(RestartSeries.longestIdle(List.of(e(50, 100), e(150, 200), e(250, 9_000), e(300, 9_000), e(8_950, 9_100))))
                .isEqualTo(8_750);
        // and when that stretch began: at the first waiting event's send (250 ms)
        assertThat(RestartSeries.idle(List.of(e(50, 100), e(150, 200), e(250, 9_000), e(300, 9_000), e(8_950, 9_100))))
                .containsExactly(8_750, 250_000_000L);
        // the same stop, the waiting events sent before the last commit: from that commit
        assertThat(RestartSeries.longestIdle(List.of(e(50, 100), e(150, 200), e(180, 9_000)))).isEqualTo(8_800);
    }

    @Test
    void aGapWithNothingWaitingIsNotIdle() {
        // nothing sent between 200 and 5,000: the quiet time does not count, only each event's own wait
        assertThat(RestartSeries.longestIdle(List.of(e(50, 100), e(150, 200), e(5_000, 5_300), e(5_100, 5_300)))).isEqualTo(300);
        assertThat(RestartSeries.longestIdle(List.of())).isZero();
    }
}
