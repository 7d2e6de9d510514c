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
import java.util.Optional;

/**
 * Failed logins, counted per user name ({@value #PER_USER} in {@link #WINDOW}) and per client
 * address ({@value #PER_ADDRESS}): past either limit, logins of that name, or from that address,
 * are refused, the right password included, until the oldest failure in the window has aged out.
 * Guessing a password is slowed to a few tries per quarter hour per account, whatever the number
 * of parallel connections (bcrypt's cost alone bounds one connection, not many).
 *
 * <p>Kept in memory, per admin server (a restart forgets it), at most {@value #MAX_KEYS} names and
 * addresses: the oldest entries go first, so random user names cannot exhaust memory. A successful
 * login clears its user's failures.
 */
public final class LoginThrottle {

    static final int PER_USER = 5;
    static final int PER_ADDRESS = 20;
    static final Duration WINDOW = Duration.ofMinutes(15);
    private static final int MAX_KEYS = 10_000;

    private final Clock clock;
    /** Key ("user:NAME" or "addr:ADDRESS") to failure instants, oldest first; access-ordered for eviction. */
    private final Map<String, Deque<Instant>> failures = new LinkedHashMap<>(16, 0.75f, true);

    public LoginThrottle(Clock clock) {
        this.clock = clock;
    }

    /** How long a login of {@code user} from {@code address} must wait; empty when it may be tried now. */
    public synchronized Optional<Duration> retryAfter(String user, String address) {
        Instant now = clock.instant();
        Duration wait = Duration.ZERO;
        for (Map.Entry<String, Integer> k : Map.of(userKey(user), PER_USER, addressKey(address), PER_ADDRESS).entrySet()) {
            Deque<Instant> d = recent(k.getKey(), now);
            if (d != null && d.size() >= k.getValue()) {
                Duration w = Duration.between(now, d.peekFirst().plus(WINDOW));
                wait = w.compareTo(wait) > 0 ? w : wait;
            }
        }
        return wait.isZero() || wait.isNegative() ? Optional.empty() : Optional.of(wait);
    }

    public synchronized void failed(String user, String address) {
        Instant now = clock.instant();
        for (String key : new String[] {userKey(user), addressKey(address)}) {
            failures.computeIfAbsent(key, k -> new ArrayDeque<>()).addLast(now);
        }
        Iterator<Map.Entry<String, Deque<Instant>>> oldest = failures.entrySet().iterator();
        while (failures.size() > MAX_KEYS && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
    }

    public synchronized void succeeded(String user) {
        failures.remove(userKey(user));
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

    private static String userKey(String user) {
        return "user:" + (user == null ? "" : user.toLowerCase(Locale.ROOT));
    }

    private static String addressKey(String address) {
        return "addr:" + address;
    }
}
