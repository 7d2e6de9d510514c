package io.dimstream.admin.auth;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Logged-in sessions, in memory (a restart logs everyone out). The session id is 256 random
 * bits; each session has its own CSRF token of 256 random bits. A session expires after the
 * idle timeout.
 */
public final class Sessions {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<String, Session> byId = new ConcurrentHashMap<>();
    private final Duration idleTimeout;
    private final Clock clock;

    /** One login. {@code lastSeen} moves on every request. */
    public static final class Session {
        private final String id;
        private final Principal principal;
        private final String csrfToken;
        private volatile Instant lastSeen;

        Session(String id, Principal principal, String csrfToken, Instant now) {
            this.id = id;
            this.principal = principal;
            this.csrfToken = csrfToken;
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

    public Sessions(Duration idleTimeout, Clock clock) {
        this.idleTimeout = idleTimeout;
        this.clock = clock;
    }

    /** A new session (a new id: never one the browser brought, so no session fixation). */
    public Session open(Principal p) {
        Instant now = clock.instant();
        byId.values().removeIf(s -> expired(s, now));
        Session s = new Session(randomToken(), p, randomToken(), now);
        byId.put(s.id, s);
        return s;
    }

    /** The live session with this id, touched; empty when unknown or expired (and then removed). */
    public Optional<Session> find(String id) {
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
        s.lastSeen = now;
        return Optional.of(s);
    }

    public void close(String id) {
        if (id != null) {
            byId.remove(id);
        }
    }

    private boolean expired(Session s, Instant now) {
        return s.lastSeen.plus(idleTimeout).isBefore(now);
    }

    /** 256 random bits, URL-safe base64. */
    public static String randomToken() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
