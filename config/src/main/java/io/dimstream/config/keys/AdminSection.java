package io.dimstream.config.keys;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dimstream.config.model.AddressRange;
import io.dimstream.config.model.AdminConfig;
import io.dimstream.config.model.ConfigEnum;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Validates the {@code admin:} section for {@link io.dimstream.config.ConfigReader}, adding each problem with its
 * field path to the reader's list. Plain passwords and API tokens must come from the environment
 * ({@code ${VAR}}), so a secret is never written into the file; which fields did is decided on
 * the tree before substitution ({@link #secretsFromEnvironment}).
 */
public final class AdminSection {

    /** bcrypt as spring-security-crypto writes and checks it: {@code $2a$10$} + 53 characters. */
    private static final Pattern BCRYPT = Pattern.compile("\\$2[aby]?\\$\\d\\d\\$[./A-Za-z0-9]{53}");
    private static final Pattern ONE_REFERENCE = Pattern.compile("\\$\\{[A-Za-z_][A-Za-z0-9_]*}");
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");
    /** PostgreSQL's statement_timeout is an int of milliseconds; a day is already far beyond any page. */
    static final Duration MAX_STATEMENT_TIMEOUT = Duration.ofHours(24);
    /** 64 GiB: a bound against a typo, not a recommendation. */
    static final int MAX_CSV_MIB = 65_536;

    private final List<String> problems;
    private final Set<String> secretsFromEnv;

    public AdminSection(List<String> problems, Set<String> secretsFromEnv) {
        this.problems = problems;
        this.secretsFromEnv = secretsFromEnv;
    }

    /**
     * Removes the {@code admin:} section from the config's tree unless the verb reads it
     * ({@code io.dimstream.config.DimstreamConfig.Sections}): a verb that serves no admin UI needs
     * neither its settings nor the environment variables of its secrets.
     */
    public static void leaveOutUnlessRead(JsonNode tree, boolean read) {
        if (!read && tree instanceof ObjectNode root) {
            root.remove("admin");
        }
    }

    /**
     * The paths ({@code admin.users[1].password}, {@code admin.api-tokens[0].token}) whose value,
     * before substitution, is exactly one {@code ${VAR}} reference.
     */
    public static Set<String> secretsFromEnvironment(JsonNode root) {
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

    public AdminConfig admin(ConfigValues values) {
        String host = values.get(ConfigKeys.ADMIN_HOST);
        int port = values.get(ConfigKeys.ADMIN_PORT);
        Duration timeout = values.get(ConfigKeys.ADMIN_SESSION_TIMEOUT);
        Duration lifetime = values.get(ConfigKeys.ADMIN_SESSION_LIFETIME);
        boolean secure = values.get(ConfigKeys.ADMIN_SECURE_COOKIE);
        List<AddressRange> proxies = values.get(ConfigKeys.ADMIN_TRUSTED_PROXIES);
        Duration statementTimeout = values.get(ConfigKeys.ADMIN_STATEMENT_TIMEOUT);
        int csvMaxMib = values.get(ConfigKeys.ADMIN_CSV_MAX_MIB);
        List<RawUser> rawUsers = values.get(ConfigKeys.ADMIN_USERS);
        List<RawToken> rawTokens = values.get(ConfigKeys.ADMIN_API_TOKENS);
        Map<String, String> names = new HashMap<>();
        List<AdminConfig.User> users = new ArrayList<>();
        if (rawUsers != null) {
            for (int i = 0; i < rawUsers.size(); i++) {
                AdminConfig.User u = user("admin.users[" + i + "]", rawUsers.get(i));
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
        if (rawTokens != null) {
            Map<String, String> tokenValues = new HashMap<>();
            for (int i = 0; i < rawTokens.size(); i++) {
                String at = "admin.api-tokens[" + i + "]";
                AdminConfig.ApiToken t = token(at, rawTokens.get(i));
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
        if ((rawUsers == null || rawUsers.isEmpty()) && (rawTokens == null || rawTokens.isEmpty())) {
            problems.add("admin.users: at least one user (or one api-token) is required: every page needs a login");
        }
        return new AdminConfig(host, port, timeout, lifetime, secure, proxies, statementTimeout, csvMaxMib, users, tokens);
    }

    private AdminConfig.User user(String at, RawUser raw) {
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

    private AdminConfig.ApiToken token(String at, RawToken raw) {
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
    public static Optional<String> placeholderSecret(String at, String secret) {
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
        try {
            return ConfigEnum.parse(AdminConfig.Role.class, raw, at);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
            return null;
        }
    }

    /** An {@code admin.users} item as the YAML holds it, checked by {@link AdminSection}. */
    public record RawUser(
            @JsonProperty("name") String name,
            @JsonProperty("role") String role,
            @JsonProperty("password-hash") String passwordHash,
            @JsonProperty("password") String password) {
    }

    /** An {@code admin.api-tokens} item as the YAML holds it, checked by {@link AdminSection}. */
    public record RawToken(
            @JsonProperty("name") String name,
            @JsonProperty("role") String role,
            @JsonProperty("token") String token) {
    }
}
