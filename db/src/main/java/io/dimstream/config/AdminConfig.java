package io.dimstream.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The {@code admin:} section: the web admin's address, its users and its API tokens.
 *
 * <pre>
 * admin:
 *   host: 127.0.0.1                      # default 127.0.0.1 (0.0.0.0 to listen on every interface)
 *   port: 8080                           # default 8080
 *   session-timeout: PT8H                # idle time before a login expires, default 8 hours
 *   secure-cookie: false                 # true behind HTTPS: the session cookie gets "Secure"
 *   users:
 *     - name: alice
 *       role: admin                      # admin (may change state) | viewer (read only)
 *       password-hash: "$2a$10$..."      # bcrypt; or ${VAR}
 *     - name: bob
 *       role: viewer
 *       password: ${DIMSTREAM_BOB_PASSWORD}   # a plain password, only from the environment
 *   api-tokens:
 *     - name: airflow
 *       role: admin
 *       token: ${DIMSTREAM_AIRFLOW_TOKEN}     # only from the environment, at least 24 characters
 * </pre>
 */
public record AdminConfig(String host, int port, Duration sessionTimeout, boolean secureCookie,
                          List<User> users, List<ApiToken> apiTokens) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8080;
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofHours(8);
    /** Shortest API token accepted. */
    public static final int MIN_TOKEN_LENGTH = 24;

    public AdminConfig {
        users = List.copyOf(users);
        apiTokens = List.copyOf(apiTokens);
    }

    /** What a login or a token may do. */
    public enum Role {
        /** Reads everything and changes state (integrity runs, later replays and quarantine actions). */
        ADMIN,
        /** Reads everything, changes nothing. */
        VIEWER;

        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Role> fromConfig(String s) {
            for (Role r : values()) {
                if (r.configName().equals(s)) {
                    return Optional.of(r);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * A login. Exactly one of {@code passwordHash} (bcrypt) and {@code password} (plain, read from
     * the environment) is present.
     */
    public record User(String name, Role role, Optional<String> passwordHash, Optional<String> password) {

        @Override
        public String toString() {
            return "User[name=" + name + ", role=" + role.configName() + ", "
                    + (passwordHash.isPresent() ? "password-hash" : "password") + "=" + Secrets.MASK + "]";
        }
    }

    /** A bearer token for the JSON API ({@code Authorization: Bearer <token>}). */
    public record ApiToken(String name, Role role, String token) {

        @Override
        public String toString() {
            return "ApiToken[name=" + name + ", role=" + role.configName() + ", token=" + Secrets.MASK + "]";
        }
    }
}
