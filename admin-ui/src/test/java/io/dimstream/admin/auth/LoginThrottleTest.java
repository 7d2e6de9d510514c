package io.dimstream.admin.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {

    /** A clock the test moves. */
    static final class TestClock extends Clock {
        Instant now = Instant.parse("2026-01-01T12:00:00Z");

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

    @Test
    void fiveFailuresOfOneNameLockItUntilTheFirstAgesOutOfTheWindow() {
        TestClock clock = new TestClock();
        LoginThrottle t = new LoginThrottle(clock);
        for (int i = 0; i < 5; i++) {
            assertThat(t.retryAfter("Alice", "10.0.0.1")).isEmpty();
            t.failed("Alice", "10.0.0.1");
            clock.now = clock.now.plusSeconds(60);
        }
        // the first failure was at 12:00, the window is 15 minutes, it is 12:05 now
        assertThat(t.retryAfter("alice", "10.0.0.9")).contains(Duration.ofMinutes(10));
        assertThat(t.retryAfter("bob", "10.0.0.1")).isEmpty();

        clock.now = Instant.parse("2026-01-01T12:15:00Z");
        assertThat(t.retryAfter("alice", "10.0.0.1")).isEmpty();
    }

    @Test
    void twentyFailuresFromOneAddressLockThatAddressForEveryName() {
        TestClock clock = new TestClock();
        LoginThrottle t = new LoginThrottle(clock);
        for (int i = 0; i < 20; i++) {
            t.failed("user" + i, "10.0.0.2");
        }
        assertThat(t.retryAfter("someone-else", "10.0.0.2")).contains(Duration.ofMinutes(15));
        assertThat(t.retryAfter("someone-else", "10.0.0.3")).isEmpty();
    }

    @Test
    void aSuccessfulLoginClearsItsNamesFailures() {
        LoginThrottle t = new LoginThrottle(new TestClock());
        for (int i = 0; i < 4; i++) {
            t.failed("carol", "10.0.0.4");
        }
        t.succeeded("carol");
        t.failed("carol", "10.0.0.4");
        assertThat(t.retryAfter("carol", "10.0.0.4")).isEqualTo(Optional.empty());
    }
}
