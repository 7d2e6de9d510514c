package io.dimstream.config.model;

import io.dimstream.db.secrets.Secrets;
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
 *   session-lifetime: PT12H              # a login expires this long after it began, however busy; default 12 hours
 *   secure-cookie: true                  # default true: cookies get "Secure", responses HSTS (serve over HTTPS);
 *                                        # false only for plain HTTP on a loopback address
 *   trusted-proxies: [10.0.0.5, 10.1.0.0/16]  # reverse proxies whose X-Forwarded-For is believed; default none
 *   statement-timeout: PT30S             # longest SQL statement of a page, API call or export; default 30 s
 *   csv-max-mib: 1024                    # largest CSV export (spooled to a temporary file), default 1024 MiB
 *   users:
 *     - name: alice
 *       role: admin                      # admin (may change state) | viewer (read only)
 *       password-hash: "$2a$10$..."      # bcrypt; or ${VAR}
 *     - name: bob
 *       role: viewer
 *       password: ${DIMSTREAM_BOB_PASSWORD}   # a plain password, only from the environment, 12 to 72 bytes
 *   api-tokens:
 *     - name: airflow
 *       role: admin
 *       token: ${DIMSTREAM_AIRFLOW_TOKEN}     # only from the environment, at least 24 characters
 * </pre>
 */
public record AdminConfig(String host, int port, Duration sessionTimeout, Duration sessionLifetime, boolean secureCookie,
                          List<AddressRange> trustedProxies, Duration statementTimeout, int csvMaxMib,
                          List<User> users, List<ApiToken> apiTokens) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 8080;
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofHours(8);
    /**
     * A login ends this long after it began even while in use: an open tab whose htmx polls keep
     * the idle timer young, or a stolen cookie, does not live for ever. 12 hours: a working day.
     */
    public static final Duration DEFAULT_SESSION_LIFETIME = Duration.ofHours(12);
    /** Cookies get Secure and responses HSTS unless the config says {@code secure-cookie: false}. */
    public static final boolean DEFAULT_SECURE_COOKIE = true;
    /**
     * Longest statement of the admin's SQL (a page, an API call, a CSV spool): enough for any page
     * on tables of tens of millions of versions, short enough that a viewer cannot keep
     * PostgreSQL busy with many slow requests.
     */
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(30);
    /** Largest CSV export, in MiB (spooled to a temporary file before it is sent). */
    public static final int DEFAULT_CSV_MAX_MIB = 1024;
    /** Shortest API token accepted. */
    public static final int MIN_TOKEN_LENGTH = 24;
    /** Shortest plain password accepted ({@code password: ${VAR}}). */
    public static final int MIN_PASSWORD_LENGTH = 12;
    /** Longest plain password accepted, in UTF-8 bytes: bcrypt reads no more than 72. */
    public static final int MAX_PASSWORD_BYTES = 72;

    public AdminConfig {
        trustedProxies = List.copyOf(trustedProxies);
        users = List.copyOf(users);
        apiTokens = List.copyOf(apiTokens);
    }

    /** The section with the defaults of everything but address, idle timeout, cookies and accounts. */
    public AdminConfig(String host, int port, Duration sessionTimeout, boolean secureCookie, List<User> users,
                       List<ApiToken> apiTokens) {
        this(host, port, sessionTimeout, DEFAULT_SESSION_LIFETIME, secureCookie, List.of(), DEFAULT_STATEMENT_TIMEOUT,
                DEFAULT_CSV_MAX_MIB, users, apiTokens);
    }

    /** What a login or a token may do. */
    public enum Role implements ConfigEnum {
        /** Reads everything and changes state (integrity runs, later replays and quarantine actions). */
        ADMIN,
        /** Reads everything, changes nothing. */
        VIEWER;

        @Override
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
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
