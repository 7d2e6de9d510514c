package io.dimstream.admin.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.model.AdminConfig.Role;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Idle timeout, lifetime and bounds, on a clock the test moves. */
class SessionsTest {

    private final LoginThrottleTest.TestClock clock = new LoginThrottleTest.TestClock();
    private final Sessions sessions = new Sessions(Duration.ofMinutes(30), Duration.ofHours(12), clock);
    private final Principal alice = new Principal("alice", Role.ADMIN, false);

    private void advance(Duration d) {
        clock.now = clock.now.plus(d);
    }

    @Test
    void aSessionInUseEndsAtItsLifetimeAnyway() {
        String id = sessions.open(alice).id();
        // used every 20 minutes, never idle for 30: alive until 12 hours after the login
        for (int i = 0; i < 35; i++) {
            advance(Duration.ofMinutes(20));
            assertThat(sessions.find(id)).as("after %d minutes", (i + 1) * 20).isPresent();
        }
        advance(Duration.ofMinutes(20));
        assertThat(sessions.find(id)).isEmpty();
    }

    @Test
    void anIdleSessionEndsAfterTheIdleTimeoutAndABackgroundPollDoesNotCountAsUse() {
        String id = sessions.open(alice).id();
        advance(Duration.ofMinutes(29));
        assertThat(sessions.find(id, false)).isPresent();
        advance(Duration.ofMinutes(2));
        // polled a minute ago, but last used 31 minutes ago
        assertThat(sessions.find(id, false)).isEmpty();

        String used = sessions.open(alice).id();
        advance(Duration.ofMinutes(29));
        assertThat(sessions.find(used, true)).isPresent();
        advance(Duration.ofMinutes(29));
        assertThat(sessions.find(used, true)).isPresent();
    }

    @Test
    void aUserHoldsAtMostTwentySessionsAndTheOldestGoesFirst() {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            ids.add(sessions.open(alice).id());
            advance(Duration.ofSeconds(1));
        }
        assertThat(ids.stream().map(id -> sessions.find(id).isPresent()).toList())
                .isEqualTo(java.util.stream.IntStream.range(0, 25).mapToObj(i -> i >= 5).toList());
        assertThat(sessions.size()).isEqualTo(Sessions.MAX_PER_USER);
    }

    @Test
    void allSessionsTogetherStayBoundedTheLeastRecentlyUsedGoingFirst() {
        // the production bound is 10,000; 200 shows the same rule without 10,000 logins
        Sessions sessions = new Sessions(Duration.ofMinutes(30), Duration.ofHours(12), clock, 200);
        String first = sessions.open(new Principal("u0", Role.VIEWER, false)).id();
        advance(Duration.ofSeconds(1));
        String second = sessions.open(new Principal("u1", Role.VIEWER, false)).id();
        advance(Duration.ofSeconds(1));
        sessions.find(first);
        for (int i = 2; i < 201; i++) {
            sessions.open(new Principal("u" + i, Role.VIEWER, false));
        }
        assertThat(sessions.size()).isEqualTo(200);
        assertThat(List.of(sessions.find(first).isPresent(), sessions.find(second).isPresent())).isEqualTo(List.of(true, false));
    }
}
