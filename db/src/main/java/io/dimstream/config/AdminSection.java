package io.dimstream.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Validates the {@code admin:} section for {@link ConfigReader}, adding each problem with its
 * field path to the reader's list. Plain passwords and API tokens must come from the environment
 * ({@code ${VAR}}), so a secret is never written into the file; which fields did is decided on
 * the tree before substitution ({@link #secretsFromEnvironment}).
 */
final class AdminSection {

    /** bcrypt as spring-security-crypto writes and checks it: {@code $2a$10$} + 53 characters. */
    private static final Pattern BCRYPT = Pattern.compile("\\$2[aby]?\\$\\d\\d\\$[./A-Za-z0-9]{53}");
    private static final Pattern ONE_REFERENCE = Pattern.compile("\\$\\{[A-Za-z_][A-Za-z0-9_]*}");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");
    /** PostgreSQL's statement_timeout is an int of milliseconds; a day is already far beyond any page. */
    private static final Duration MAX_STATEMENT_TIMEOUT = Duration.ofHours(24);
    /** 64 GiB: a bound against a typo, not a recommendation. */
    private static final int MAX_CSV_MIB = 65_536;

    private final List<String> problems;
    private final Set<String> secretsFromEnv;

    AdminSection(List<String> problems, Set<String> secretsFromEnv) {
        this.problems = problems;
        this.secretsFromEnv = secretsFromEnv;
    }

    /**
     * The paths ({@code admin.users[1].password}, {@code admin.api-tokens[0].token}) whose value,
     * before substitution, is exactly one {@code ${VAR}} reference.
     */
    static Set<String> secretsFromEnvironment(JsonNode root) {
        Set<String> out = new HashSet<>();
        JsonNode admin = root.path("admin");
        collect(admin.path("users"), "admin.users", "password", out);
        collect(admin.path("api-tokens"), "admin.api-tokens", "token", out);
        return out;
    }

    private static void collect(JsonNode list, String at, String field, Set<String> out) {
        if (!list.isArray()) {
            return;
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode v = list.get(i).path(field);
            if (v.isTextual() && ONE_REFERENCE.matcher(v.asText().trim()).matches()) {
                out.add(at + "[" + i + "]." + field);
            }
        }
    }

    AdminConfig admin(ConfigReader.RawAdmin raw) {
        String host = AdminConfig.DEFAULT_HOST;
        if (raw.host() != null) {
            if (raw.host().isBlank()) {
                problems.add("admin.host: must not be empty");
            }
            host = raw.host().trim();
        }
        int port = AdminConfig.DEFAULT_PORT;
        if (raw.port() != null) {
            port = raw.port();
            if (port < 1 || port > 65535) {
                problems.add("admin.port: must be between 1 and 65535, got " + port);
            }
        }
        Duration timeout = AdminConfig.DEFAULT_SESSION_TIMEOUT;
        if (raw.sessionTimeout() != null) {
            try {
                timeout = Duration.parse(raw.sessionTimeout());
                if (timeout.isNegative() || timeout.isZero()) {
                    problems.add("admin.session-timeout: must be positive, got " + raw.sessionTimeout());
                }
            } catch (DateTimeParseException e) {
                problems.add("admin.session-timeout: \"" + raw.sessionTimeout() + "\" is not an ISO-8601 duration (e.g. PT8H)");
            }
        }
        Duration lifetime = duration("admin.session-lifetime", raw.sessionLifetime(), AdminConfig.DEFAULT_SESSION_LIFETIME, "PT12H");
        boolean secure = raw.secureCookie() == null ? AdminConfig.DEFAULT_SECURE_COOKIE : raw.secureCookie();
        List<AddressRange> proxies = trustedProxies(raw.trustedProxies());
        Duration statementTimeout = duration("admin.statement-timeout", raw.statementTimeout(),
                AdminConfig.DEFAULT_STATEMENT_TIMEOUT, "PT30S");
        if (statementTimeout.toMillis() < 1 || statementTimeout.compareTo(MAX_STATEMENT_TIMEOUT) > 0) {
            problems.add("admin.statement-timeout: must be between 1 ms and " + MAX_STATEMENT_TIMEOUT + ", got " + raw.statementTimeout());
        }
        int csvMaxMib = AdminConfig.DEFAULT_CSV_MAX_MIB;
        if (raw.csvMaxMib() != null) {
            csvMaxMib = raw.csvMaxMib();
            if (csvMaxMib < 1 || csvMaxMib > MAX_CSV_MIB) {
                problems.add("admin.csv-max-mib: must be between 1 and " + MAX_CSV_MIB + ", got " + csvMaxMib);
            }
        }
        Map<String, String> names = new HashMap<>();
        List<AdminConfig.User> users = new ArrayList<>();
        if (raw.users() != null) {
            for (int i = 0; i < raw.users().size(); i++) {
                AdminConfig.User u = user("admin.users[" + i + "]", raw.users().get(i));
                if (u != null) {
                    String other = names.putIfAbsent(u.name(), "admin.users[" + i + "]");
                    if (other != null) {
                        problems.add("admin.users[" + i + "].name: \"" + u.name() + "\" is already the name of " + other);
                    }
                    users.add(u);
                }
            }
        }
        List<AdminConfig.ApiToken> tokens = new ArrayList<>();
        if (raw.apiTokens() != null) {
            Map<String, String> tokenValues = new HashMap<>();
            for (int i = 0; i < raw.apiTokens().size(); i++) {
                String at = "admin.api-tokens[" + i + "]";
                AdminConfig.ApiToken t = token(at, raw.apiTokens().get(i));
                if (t != null) {
                    String other = names.putIfAbsent(t.name(), at);
                    if (other != null) {
                        problems.add(at + ".name: \"" + t.name() + "\" is already the name of " + other);
                    }
                    String same = tokenValues.putIfAbsent(t.token(), at);
                    if (same != null) {
                        problems.add(at + ".token: the same token as " + same);
                    }
                    tokens.add(t);
                }
            }
        }
        if ((raw.users() == null || raw.users().isEmpty()) && (raw.apiTokens() == null || raw.apiTokens().isEmpty())) {
            problems.add("admin.users: at least one user (or one api-token) is required: every page needs a login");
        }
        return new AdminConfig(host, port, timeout, lifetime, secure, proxies, statementTimeout, csvMaxMib, users, tokens);
    }

    /** A positive ISO-8601 duration, {@code dflt} when not given. */
    private Duration duration(String at, String raw, Duration dflt, String example) {
        if (raw == null) {
            return dflt;
        }
        try {
            Duration d = Duration.parse(raw);
            if (d.isNegative() || d.isZero()) {
                problems.add(at + ": must be positive, got " + raw);
                return dflt;
            }
            return d;
        } catch (DateTimeParseException e) {
            problems.add(at + ": \"" + raw + "\" is not an ISO-8601 duration (e.g. " + example + ")");
            return dflt;
        }
    }

    /** {@code admin.trusted-proxies}: IP literals or CIDR blocks, never host names. */
    private List<AddressRange> trustedProxies(List<String> raw) {
        List<AddressRange> out = new ArrayList<>();
        if (raw == null) {
            return out;
        }
        for (int i = 0; i < raw.size(); i++) {
            String at = "admin.trusted-proxies[" + i + "]";
            Optional<AddressRange> r = AddressRange.parse(raw.get(i));
            if (r.isEmpty()) {
                problems.add(at + ": \"" + raw.get(i) + "\" is not an IP address or CIDR block (e.g. 10.0.0.5, 10.1.0.0/16, fd00::/8)");
            } else {
                out.add(r.get());
            }
        }
        return out;
    }

    private AdminConfig.User user(String at, ConfigReader.RawUser raw) {
        if (raw == null) {
            problems.add(at + ": expected a user (name:, role:, password-hash:), got nothing");
            return null;
        }
        int before = problems.size();
        String name = name(at + ".name", raw.name());
        AdminConfig.Role role = role(at + ".role", raw.role());
        Optional<String> hash = Optional.empty();
        Optional<String> password = Optional.empty();
        if (raw.passwordHash() != null && raw.password() != null) {
            problems.add(at + ": give password-hash or password, not both");
        } else if (raw.passwordHash() != null) {
            if (!BCRYPT.matcher(raw.passwordHash().trim()).matches()) {
                problems.add(at + ".password-hash: not a bcrypt hash (expected $2a$, $2b$ or $2y$, the cost, then 53 characters; "
                        + "60 in all)");
            }
            hash = Optional.of(raw.passwordHash().trim());
        } else if (raw.password() != null) {
            if (!secretsFromEnv.contains(at + ".password")) {
                problems.add(at + ".password: a plain password must come from the environment (write ${VAR}); "
                        + "put a bcrypt hash in password-hash instead");
            } else if (raw.password().isEmpty()) {
                problems.add(at + ".password: the environment variable is empty");
            } else {
                passwordProblem(at + ".password", raw.password()).ifPresent(problems::add);
            }
            password = Optional.of(raw.password());
        } else {
            problems.add(at + ".password-hash: required (a bcrypt hash; or password: ${VAR})");
        }
        return problems.size() > before ? null : new AdminConfig.User(name, role, hash, password);
    }

    private AdminConfig.ApiToken token(String at, ConfigReader.RawToken raw) {
        if (raw == null) {
            problems.add(at + ": expected an api token (name:, role:, token:), got nothing");
            return null;
        }
        int before = problems.size();
        String name = name(at + ".name", raw.name());
        AdminConfig.Role role = role(at + ".role", raw.role());
        if (raw.token() == null || raw.token().isBlank()) {
            problems.add(at + ".token: required (write ${VAR}: tokens come from the environment)");
        } else if (!secretsFromEnv.contains(at + ".token")) {
            problems.add(at + ".token: must come from the environment (write ${VAR}), not be written in the file");
        } else if (raw.token().length() < AdminConfig.MIN_TOKEN_LENGTH) {
            problems.add(at + ".token: too short (" + raw.token().length() + " characters; at least "
                    + AdminConfig.MIN_TOKEN_LENGTH + ", e.g. openssl rand -hex 24)");
        } else if (isPlaceholder(raw.token())) {
            problems.add(at + ".token: " + PLACEHOLDER + " (e.g. openssl rand -hex 24)");
        }
        return problems.size() > before ? null : new AdminConfig.ApiToken(name, role, raw.token());
    }

    /**
     * Why a plain login password is refused: shorter than {@value AdminConfig#MIN_PASSWORD_LENGTH}
     * characters, longer than bcrypt's {@value AdminConfig#MAX_PASSWORD_BYTES} bytes (it would
     * ignore the rest, or fail at start), or still the example's placeholder.
     */
    static Optional<String> passwordProblem(String at, String password) {
        int bytes = password.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
        if (password.codePointCount(0, password.length()) < AdminConfig.MIN_PASSWORD_LENGTH) {
            return Optional.of(at + ": too short (at least " + AdminConfig.MIN_PASSWORD_LENGTH + " characters)");
        }
        if (bytes > AdminConfig.MAX_PASSWORD_BYTES) {
            return Optional.of(at + ": too long (" + bytes + " bytes in UTF-8; bcrypt reads at most "
                    + AdminConfig.MAX_PASSWORD_BYTES + ")");
        }
        if (isPlaceholder(password)) {
            return Optional.of(at + ": " + PLACEHOLDER);
        }
        return Optional.empty();
    }

    /** {@code postgres.password} (or another secret outside {@code admin:}) refused when still a placeholder. */
    static Optional<String> placeholderSecret(String at, String secret) {
        return secret != null && isPlaceholder(secret) ? Optional.of(at + ": " + PLACEHOLDER) : Optional.empty();
    }

    /** What a refusal of a placeholder secret says. */
    static final String PLACEHOLDER = "still a placeholder like .env.example's \"change-me\": set a real secret";

    /**
     * Whether a secret is the kind of placeholder an example file ships ({@code change-me},
     * {@code CHANGE_ME_too}, {@code changeme123}): such a value must never reach production.
     */
    static boolean isPlaceholder(String secret) {
        String s = secret.toLowerCase(java.util.Locale.ROOT).replaceAll("[-_.\\s]", "");
        return s.contains("changeme");
    }

    private String name(String at, String raw) {
        if (raw == null || raw.isBlank()) {
            problems.add(at + ": required");
            return null;
        }
        if (!NAME.matcher(raw).matches()) {
            problems.add(at + ": \"" + raw + "\" may only hold letters, digits and _ . @ - (at most 64)");
        }
        return raw;
    }

    private AdminConfig.Role role(String at, String raw) {
        if (raw == null) {
            problems.add(at + ": required (admin or viewer)");
            return null;
        }
        Optional<AdminConfig.Role> r = AdminConfig.Role.fromConfig(raw);
        if (r.isEmpty()) {
            problems.add(at + ": unknown role \"" + raw + "\" (admin or viewer)");
            return null;
        }
        return r.get();
    }
}
