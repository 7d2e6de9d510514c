package io.dimstream.admin.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Login attempts, counted per (user name, client) and per client ({@link ClientAddress}), in a
 * sliding window of {@link #WINDOW}:
 * <ul>
 *   <li>at most {@value #PER_USER_CLIENT} failed logins of one name from one client, and</li>
 *   <li>at most {@value #PER_CLIENT} failed logins from one client, whatever the names;</li>
 *   <li>past either, that name from that client (or that client for every name) is refused,
 *       the right password included, until the oldest failure in the window is older than
 *       {@link #WINDOW}: a lock lasts at most 15 minutes after the failure that set it.</li>
 * </ul>
 *
 * <p><b>Atomic reservation.</b> {@link #tryAcquire} checks the limits and records the attempt as
 * a failure in one synchronized step, <em>before</em> the password is checked; a correct
 * password then takes the reservation back ({@link Permit#succeeded}). However many requests run
 * in parallel, at most {@value #PER_USER_CLIENT} passwords of one name from one client are ever
 * checked per window; the rest are refused before bcrypt.
 *
 * <p><b>No lock-out of the real user.</b> Failures lock only the client they come from: a
 * stranger's guesses at {@code admin} do not lock {@code admin} out of its own browser, and a
 * success clears the name's failures from that client. The client is the remote address, or,
 * behind a configured trusted proxy, the address the proxy saw: without
 * {@code admin.trusted-proxies} every user behind a proxy is one client and shares the
 * per-client budget. The cost: an attacker with many addresses gets
 * {@value #PER_USER_CLIENT} guesses per address and window (an IPv6 /64 counts as one); bcrypt,
 * and passwords of at least 12 characters, keep that far from enough.
 *
 * <p>Kept in memory, per admin server (a restart forgets it). At most {@value #MAX_KEYS} keys: the
 * least recently used go first, so random names or addresses cannot exhaust memory; a key holds at
 * most its limit of instants. User names are keyed lower-cased and cut at 65 characters
 * (configured names have at most 64), so a megabyte-long name costs no more than a short one.
 */
public final class LoginThrottle {

    static final int PER_USER_CLIENT = 5;
    static final int PER_CLIENT = 20;
    static final Duration WINDOW = Duration.ofMinutes(15);
    static final int MAX_KEYS = 10_000;
    private static final int MAX_NAME_IN_KEY = 65;

    private final Clock clock;
    /** Key ("user:CLIENT NAME" or "addr:CLIENT") to failure instants, oldest first; access-ordered for eviction. */
    private final Map<String, Deque<Instant>> failures = new LinkedHashMap<>(16, 0.75f, true);

    public LoginThrottle(Clock clock) {
        this.clock = clock;
    }

    /** What {@link #tryAcquire} decided. */
    public sealed interface Attempt permits Refused, Permit {
    }

    /** Refused: too many failures; {@code retryAfter} until the oldest leaves the window. */
    public record Refused(Duration retryAfter) implements Attempt {
    }

    /** May check the password; counted as a failure unless {@link #succeeded()} is called. */
    public final class Permit implements Attempt {
        private final String userKey;
        private final String clientKey;
        private final Instant at;

        private Permit(String userKey, String clientKey, Instant at) {
            this.userKey = userKey;
            this.clientKey = clientKey;
            this.at = at;
        }

        /**
         * The password was right: this name's failures from this client are cleared, and the
         * attempt is not counted against the client.
         */
        public void succeeded() {
            synchronized (LoginThrottle.this) {
                failures.remove(userKey);
                Deque<Instant> d = failures.get(clientKey);
                if (d != null) {
                    d.removeLastOccurrence(at);
                    if (d.isEmpty()) {
                        failures.remove(clientKey);
                    }
                }
            }
        }
    }

    /**
     * Checks the limits of {@code user} from {@code clientKey} and, when the attempt may go on,
     * counts it as a failure in the same step (see the class comment).
     */
    public synchronized Attempt tryAcquire(String user, String clientKey) {
        Instant now = clock.instant();
        String uk = userKey(user, clientKey);
        Duration wait = Duration.ZERO;
        Deque<Instant> byUser = recent(uk, now);
        if (byUser != null && byUser.size() >= PER_USER_CLIENT) {
            wait = max(wait, Duration.between(now, byUser.peekFirst().plus(WINDOW)));
        }
        Deque<Instant> byClient = recent(clientKey, now);
        if (byClient != null && byClient.size() >= PER_CLIENT) {
            wait = max(wait, Duration.between(now, byClient.peekFirst().plus(WINDOW)));
        }
        if (!wait.isZero() && !wait.isNegative()) {
            return new Refused(wait);
        }
        record(uk, now);
        record(clientKey, now);
        return new Permit(uk, clientKey, now);
    }

    /** How many keys are held (tests: the map stays bounded). */
    synchronized int size() {
        return failures.size();
    }

    private void record(String key, Instant now) {
        failures.computeIfAbsent(key, k -> new ArrayDeque<>()).addLast(now);
        Iterator<Map.Entry<String, Deque<Instant>>> oldest = failures.entrySet().iterator();
        while (failures.size() > MAX_KEYS && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
    }

    /** The key's failures within the window (older ones dropped); null when none. */
    private Deque<Instant> recent(String key, Instant now) {
        Deque<Instant> d = failures.get(key);
        if (d == null) {
            return null;
        }
        Instant cut = now.minus(WINDOW);
        while (!d.isEmpty() && !d.peekFirst().isAfter(cut)) {
            d.removeFirst();
        }
        if (d.isEmpty()) {
            failures.remove(key);
            return null;
        }
        return d;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static String userKey(String user, String clientKey) {
        String name = user == null ? "" : user.toLowerCase(Locale.ROOT);
        if (name.length() > MAX_NAME_IN_KEY) {
            name = name.substring(0, MAX_NAME_IN_KEY);
        }
        return "user:" + clientKey + " " + name;
    }
}
