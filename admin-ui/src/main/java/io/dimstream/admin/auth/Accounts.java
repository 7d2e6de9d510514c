package io.dimstream.admin.auth;

import io.dimstream.config.model.AdminConfig;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * The users and API tokens of {@code admin:}. Passwords are checked with bcrypt
 * (spring-security-crypto); a plain password from the environment is hashed once at start, so
 * every check costs the same. Tokens are compared as SHA-256 digests in constant time.
 */
public final class Accounts {

    private final BCryptPasswordEncoder bcrypt = new BCryptPasswordEncoder();
    private final Map<String, Login> users = new LinkedHashMap<>();
    private final List<Token> tokens;
    /** Checked when the user is unknown, so an unknown name takes as long as a wrong password. */
    private final String dummyHash;

    private record Login(AdminConfig.Role role, String hash) {
    }

    private record Token(String name, AdminConfig.Role role, byte[] digest) {
    }

    public Accounts(AdminConfig config) {
        for (AdminConfig.User u : config.users()) {
            String hash = u.passwordHash().orElseGet(() -> bcrypt.encode(u.password().orElseThrow()));
            users.put(u.name(), new Login(u.role(), hash));
        }
        tokens = config.apiTokens().stream().map(t -> new Token(t.name(), t.role(), sha256(t.token()))).toList();
        dummyHash = bcrypt.encode("no such user");
    }

    /** The user, when the password is right. */
    public Optional<Principal> login(String name, String password) {
        if (name == null || password == null) {
            return Optional.empty();
        }
        Login l = users.get(name);
        if (l == null) {
            bcrypt.matches(password, dummyHash);
            return Optional.empty();
        }
        return bcrypt.matches(password, l.hash()) ? Optional.of(new Principal(name, l.role(), false)) : Optional.empty();
    }

    /** The token's holder, when the token is one of the configured ones. */
    public Optional<Principal> bearer(String token) {
        if (token == null || token.isEmpty()) {
            return Optional.empty();
        }
        byte[] d = sha256(token);
        Token found = null;
        for (Token t : tokens) {
            if (MessageDigest.isEqual(t.digest(), d)) {
                found = t;
            }
        }
        return found == null ? Optional.empty() : Optional.of(new Principal(found.name(), found.role(), true));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
