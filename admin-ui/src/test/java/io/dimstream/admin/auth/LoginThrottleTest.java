package io.dimstream.admin.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The throttle alone, on a clock the test moves: no sleeping. */
class LoginThrottleTest {

    /** A clock the test moves. */
    static final class TestClock extends Clock {
        volatile Instant now = Instant.parse("2026-01-01T12:00:00Z");

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private static Object outcome(LoginThrottle.Attempt a) {
        return a instanceof LoginThrottle.Refused r ? r : "permit";
    }

    @Test
    void fiveFailuresOfOneNameFromOneClientLockThatNameOnThatClientOnly() {
        TestClock clock = new TestClock();
        LoginThrottle t = new LoginThrottle(clock);
        for (int i = 0; i < 5; i++) {
            assertThat(outcome(t.tryAcquire("Alice", "addr:10.0.0.1"))).isEqualTo("permit");
            clock.now = clock.now.plusSeconds(60);
        }
        // the first failure was at 12:00, the window is 15 minutes, it is 12:05 now
        assertThat(List.of(outcome(t.tryAcquire("alice", "addr:10.0.0.1")), outcome(t.tryAcquire("alice", "addr:10.0.0.9")),
                outcome(t.tryAcquire("bob", "addr:10.0.0.1"))))
                .isEqualTo(List.of(new LoginThrottle.Refused(Duration.ofMinutes(10)), "permit", "permit"));
    }

    @Test
    void aLockEndsWhenItsOldestFailureLeavesTheWindowSoItIsBoundedByFifteenMinutes() {
        TestClock clock = new TestClock();
        LoginThrottle t = new LoginThrottle(clock);
        for (int i = 0; i < 5; i++) {
            t.tryAcquire("alice", "addr:10.0.0.1");
        }
        clock.now = Instant.parse("2026-01-01T12:14:59Z");
        assertThat(outcome(t.tryAcquire("alice", "addr:10.0.0.1"))).isEqualTo(new LoginThrottle.Refused(Duration.ofSeconds(1)));
        clock.now = Instant.parse("2026-01-01T12:15:00Z");
        assertThat(outcome(t.tryAcquire("alice", "addr:10.0.0.1"))).isEqualTo("permit");
        // the refused attempt at 12:14:59 was not counted: four failures of 12:00 left the window, one is new
        for (int i = 0; i < 4; i++) {
            assertThat(outcome(t.tryAcquire("alice", "addr:10.0.0.1"))).isEqualTo("permit");
        }
        assertThat(outcome(t.tryAcquire("alice", "addr:10.0.0.1"))).isEqualTo(new LoginThrottle.Refused(Duration.ofMinutes(15)));
    }

    @Test
    void twentyFailuresFromOneClientLockThatClientForEveryName() {
        TestClock clock = new TestClock();
        LoginThrottle t = new LoginThrottle(clock);
        for (int i = 0; i < 20; i++) {
            assertThat(outcome(t.tryAcquire("user" + i, "addr:10.0.0.2"))).isEqualTo("permit");
        }
        assertThat(List.of(outcome(t.tryAcquire("someone-else", "addr:10.0.0.2")), outcome(t.tryAcquire("someone-else", "addr:10.0.0.3"))))
                .isEqualTo(List.of(new LoginThrottle.Refused(Duration.ofMinutes(15)), "permit"));
    }

    @Test
    void aSuccessTakesItsReservationBackAndClearsTheNamesFailuresOnThatClient() {
        LoginThrottle t = new LoginThrottle(new TestClock());
        for (int i = 0; i < 4; i++) {
            t.tryAcquire("carol", "addr:10.0.0.4");
        }
        ((LoginThrottle.Permit) t.tryAcquire("carol", "addr:10.0.0.4")).succeeded();
        for (int i = 0; i < 5; i++) {
            assertThat(outcome(t.tryAcquire("carol", "addr:10.0.0.4"))).as("attempt %d after the success", i).isEqualTo("permit");
        }
        // per client: the 4 + 5 failures count, the success does not
        for (int i = 0; i < 11; i++) {
            assertThat(outcome(t.tryAcquire("dave" + i, "addr:10.0.0.4"))).isEqualTo("permit");
        }
        assertThat(outcome(t.tryAcquire("erin", "addr:10.0.0.4"))).isInstanceOf(LoginThrottle.Refused.class);
    }

    @Test
    void parallelAttemptsGetExactlyTheAllowedNumberOfPermits() throws Exception {
        LoginThrottle t = new LoginThrottle(new TestClock());
        ExecutorService pool = Executors.newFixedThreadPool(32);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Object>> all = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                all.add(pool.submit(() -> {
                    go.await();
                    return outcome(t.tryAcquire("admin", "addr:10.0.0.5"));
                }));
            }
            go.countDown();
            long permits = 0;
            for (Future<Object> f : all) {
                permits += "permit".equals(f.get()) ? 1 : 0;
            }
            assertThat(permits).isEqualTo(5);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theMapStaysBoundedAndAHugeNameCostsNoMoreThanAShortOne() {
        LoginThrottle t = new LoginThrottle(new TestClock());
        for (int i = 0; i < 30_000; i++) {
            t.tryAcquire("x", "addr:10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255));
        }
        assertThat(t.size()).isEqualTo(LoginThrottle.MAX_KEYS);
        // names are keyed on their first 65 characters: a long name and its variants share one budget
        LoginThrottle u = new LoginThrottle(new TestClock());
        String prefix = "a".repeat(65);
        for (int i = 0; i < 5; i++) {
            u.tryAcquire(prefix + "-" + i + "x".repeat(100_000), "addr:10.0.0.6");
        }
        assertThat(outcome(u.tryAcquire(prefix + "-other", "addr:10.0.0.6"))).isInstanceOf(LoginThrottle.Refused.class);
    }
}
