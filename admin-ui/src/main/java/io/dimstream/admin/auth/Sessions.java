package io.dimstream.admin.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Logged-in sessions, in memory (a restart logs everyone out). The session id is 256 random
 * bits; each session has its own CSRF token of 256 random bits. A session ends after the idle
 * timeout ({@code admin.session-timeout}) or, however busy, after its lifetime
 * ({@code admin.session-lifetime}) since the login: an open tab whose htmx polls keep it in use, or
 * a stolen cookie, does not live for ever. A background poll ({@link #find(String, boolean)} with
 * {@code activity = false}) does not count as activity for the idle timeout.
 *
 * <p>Bounded: at most {@value #MAX_PER_USER} sessions per user (a new login ends that user's oldest)
 * and {@value #MAX_SESSIONS} in all (a new login ends the least recently used). Only a correct
 * password opens a session, so the bounds stop a script that logs in in a loop, not a stranger.
 */
public final class Sessions {

    static final int MAX_SESSIONS = 10_000;
    static final int MAX_PER_USER = 20;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<String, Session> byId = new ConcurrentHashMap<>();
    private final Duration idleTimeout;
    private final Duration lifetime;
    private final Clock clock;
    private final int maxSessions;

    /** One login. {@code lastSeen} moves on every request that is not a background poll. */
    public static final class Session {
        private final String id;
        private final Principal principal;
        private final String csrfToken;
        private final Instant created;
        private volatile Instant lastSeen;

        Session(String id, Principal principal, String csrfToken, Instant now) {
            this.id = id;
            this.principal = principal;
            this.csrfToken = csrfToken;
            this.created = now;
            this.lastSeen = now;
        }

        public String id() {
            return id;
        }

        public Principal principal() {
            return principal;
        }

        public String csrfToken() {
            return csrfToken;
        }

        /** Whether {@code token} is this session's CSRF token (constant-time compare). */
        public boolean csrfMatches(String token) {
            return token != null && MessageDigest.isEqual(token.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    csrfToken.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    public Sessions(Duration idleTimeout, Duration lifetime, Clock clock) {
        this(idleTimeout, lifetime, clock, MAX_SESSIONS);
    }

    /** With another bound on all sessions (tests). */
    Sessions(Duration idleTimeout, Duration lifetime, Clock clock, int maxSessions) {
        this.idleTimeout = idleTimeout;
        this.lifetime = lifetime;
        this.clock = clock;
        this.maxSessions = maxSessions;
    }

    /**
     * A new session (a new id: never one the browser brought, so no session fixation). Expired
     * sessions are dropped first, then, past the bounds, the user's oldest and the least recently
     * used.
     */
    public synchronized Session open(Principal p) {
        Instant now = clock.instant();
        byId.values().removeIf(s -> expired(s, now));
        List<Session> mine = byId.values().stream().filter(s -> s.principal.name().equals(p.name()))
                .sorted(Comparator.comparing((Session s) -> s.created)).toList();
        for (int i = 0; i <= mine.size() - MAX_PER_USER; i++) {
            byId.remove(mine.get(i).id);
        }
        if (byId.size() >= maxSessions) {
            byId.values().stream().sorted(Comparator.comparing((Session s) -> s.lastSeen)).limit(byId.size() - maxSessions + 1L)
                    .map(s -> s.id).toList().forEach(byId::remove);
        }
        Session s = new Session(randomToken(), p, randomToken(), now);
        byId.put(s.id, s);
        return s;
    }

    /** The live session with this id, touched; empty when unknown or expired (and then removed). */
    public Optional<Session> find(String id) {
        return find(id, true);
    }

    /**
     * The live session with this id; empty when unknown or expired (and then removed).
     *
     * @param activity whether the request counts as use (it restarts the idle timeout); a
     *                 background poll does not
     */
    public Optional<Session> find(String id, boolean activity) {
        if (id == null) {
            return Optional.empty();
        }
        Session s = byId.get(id);
        if (s == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        if (expired(s, now)) {
            byId.remove(id);
            return Optional.empty();
        }
        if (activity) {
            s.lastSeen = now;
        }
        return Optional.of(s);
    }

    public void close(String id) {
        if (id != null) {
            byId.remove(id);
        }
    }

    /** How many sessions are held (tests: the map stays bounded). */
    int size() {
        return byId.size();
    }

    private boolean expired(Session s, Instant now) {
        return s.lastSeen.plus(idleTimeout).isBefore(now) || !now.isBefore(s.created.plus(lifetime));
    }

    /** 256 random bits, URL-safe base64. */
    public static String randomToken() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
