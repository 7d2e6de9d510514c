package io.dimstream.config;

import io.dimstream.config.model.AddressRange;
import io.dimstream.config.model.AdminConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AdminConfigTest {

    static final String HASH = "$2a$10$abcdefghijklmnopqrstuuOw0gJ3lYb5m0W9Yg3k3r1y9lH1m1bS2";
    static final String BASE = """
            postgres: {url: embedded}
            entities:
              - {name: c, topic: t, table: c, key: [id], tracked: [a], columns: {id: text, a: text}}
            """;
    static final Map<String, String> ENV = Map.of("PW", "secret-pw-0123", "TOKEN", "0123456789abcdef0123456789", "SHORT", "abc",
            "PW11", "eleven-char", "PW72", "é".repeat(36), "PW73", "é".repeat(36) + "x", "EXAMPLE_PW", "change-me-too",
            "EXAMPLE_TOKEN", "change-me-0123456789abcdef0123");

    static DimstreamConfig parse(String admin) {
        return DimstreamConfig.parse(BASE + admin, "config t.yml", ENV);
    }

    @Test
    void aWholeAdminSectionIsRead() {
        DimstreamConfig c = parse("""
                admin:
                  host: 0.0.0.0
                  port: 9090
                  session-timeout: PT1H
                  session-lifetime: PT4H
                  secure-cookie: false
                  trusted-proxies: [10.0.0.5, 10.1.2.3/16, "fd00::/8"]
                  statement-timeout: PT5S
                  csv-max-mib: 64
                  users:
                    - {name: alice, role: admin, password-hash: "%s"}
                    - {name: bob, role: viewer, password: "${PW}"}
                  api-tokens:
                    - {name: airflow, role: admin, token: "${TOKEN}"}
                """.formatted(HASH));
        assertThat(c.admin()).contains(new AdminConfig("0.0.0.0", 9090, Duration.ofHours(1), Duration.ofHours(4), false,
                List.of(range("10.0.0.5"), range("10.1.0.0/16"), range("fd00::/8")), Duration.ofSeconds(5), 64, List.of(
                new AdminConfig.User("alice", AdminConfig.Role.ADMIN, Optional.of(HASH), Optional.empty()),
                new AdminConfig.User("bob", AdminConfig.Role.VIEWER, Optional.empty(), Optional.of("secret-pw-0123"))),
                List.of(new AdminConfig.ApiToken("airflow", AdminConfig.Role.ADMIN, "0123456789abcdef0123456789"))));
        assertThat(c.describeMasked()).contains("password-hash: '****'").contains("token: '****'")
                .doesNotContain("secret-pw").doesNotContain("0123456789abcdef").doesNotContain(HASH)
                .contains("""
                        admin:
                          host: 0.0.0.0
                          port: 9090
                          session-timeout: PT1H
                          session-lifetime: PT4H
                          secure-cookie: false
                          trusted-proxies:
                            - 10.0.0.5
                            - 10.1.0.0/16
                            - fd00:0:0:0:0:0:0:0/8
                          statement-timeout: PT5S
                          csv-max-mib: 64
                        """);
    }

    private static AddressRange range(String s) {
        return AddressRange.parse(s).orElseThrow();
    }

    @Test
    void defaultsApplyAndNoSectionMeansNoAdmin() {
        DimstreamConfig c = parse("admin:\n  users: [{name: a, role: viewer, password-hash: \"" + HASH + "\"}]\n");
        assertThat(c.admin().orElseThrow().host()).isEqualTo("127.0.0.1");
        assertThat(c.admin().orElseThrow().port()).isEqualTo(8080);
        assertThat(c.admin().orElseThrow().sessionTimeout()).isEqualTo(Duration.ofHours(8));
        // secure by default: only a config that says so serves cookies without Secure (dimstream demo does, on 127.0.0.1)
        assertThat(List.of(c.admin().orElseThrow().secureCookie(), c.admin().orElseThrow().sessionLifetime(),
                c.admin().orElseThrow().trustedProxies(), c.admin().orElseThrow().statementTimeout(), c.admin().orElseThrow().csvMaxMib()))
                .isEqualTo(List.of(true, Duration.ofHours(12), List.of(), Duration.ofSeconds(30), 1024));
        assertThat(parse("").admin()).isEmpty();
        assertThatThrownBy(() -> parse("").requireAdmin()).hasMessageStartingWith("admin: required to start the web admin");
    }

    @Test
    void wrongAdminConfigIsRefusedNamingEveryField() {
        assertThatThrownBy(() -> parse("""
                admin:
                  port: 70000
                  session-timeout: 8h
                  users:
                    - {name: alice, role: root, password-hash: "plain"}
                    - {name: bob, role: viewer, password: "written-in-the-file"}
                    - {name: carol, role: viewer, password-hash: "%s"}
                    - {name: carol, role: admin, password-hash: "%s"}
                  api-tokens:
                    - {name: t1, role: admin, token: "literal-token-0123456789abcdef"}
                    - {name: t2, role: admin, token: "${SHORT}"}
                """.formatted(HASH, HASH)))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "admin.port: must be between 1 and 65535, got 70000",
                        "admin.session-timeout: \"8h\" is not an ISO-8601 duration (e.g. PT8H)",
                        "admin.users[0].role: \"root\" is neither admin nor viewer",
                        "admin.users[0].password-hash: not a bcrypt hash (expected $2a$, $2b$ or $2y$, the cost, then 53 characters; 60 in all)",
                        "admin.users[1].password: a plain password must come from the environment (write ${VAR}); put a bcrypt hash in password-hash instead",
                        "admin.users[3].name: \"carol\" is already the name of admin.users[2]",
                        "admin.api-tokens[0].token: must come from the environment (write ${VAR}), not be written in the file",
                        "admin.api-tokens[1].token: too short (3 characters; at least 24, e.g. openssl rand -hex 24)"));
        assertThatThrownBy(() -> parse("""
                admin:
                  session-lifetime: PT0S
                  trusted-proxies: [proxy.internal, 10.0.0.0/33, "::1/129", 10.0.0.256]
                  statement-timeout: P2D
                  csv-max-mib: 0
                  users:
                    - {name: a, role: viewer, password: "${PW11}"}
                    - {name: b, role: viewer, password: "${PW72}"}
                    - {name: c, role: viewer, password: "${PW73}"}
                    - {name: d, role: viewer, password: "${EXAMPLE_PW}"}
                  api-tokens:
                    - {name: t, role: admin, token: "${EXAMPLE_TOKEN}"}
                """))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "admin.session-lifetime: must be positive, got PT0S",
                        "admin.trusted-proxies[0]: \"proxy.internal\" is not an IP address or CIDR block (e.g. 10.0.0.5, 10.1.0.0/16, fd00::/8)",
                        "admin.trusted-proxies[1]: \"10.0.0.0/33\" is not an IP address or CIDR block (e.g. 10.0.0.5, 10.1.0.0/16, fd00::/8)",
                        "admin.trusted-proxies[2]: \"::1/129\" is not an IP address or CIDR block (e.g. 10.0.0.5, 10.1.0.0/16, fd00::/8)",
                        "admin.trusted-proxies[3]: \"10.0.0.256\" is not an IP address or CIDR block (e.g. 10.0.0.5, 10.1.0.0/16, fd00::/8)",
                        "admin.statement-timeout: must be between 1 ms and PT24H, got P2D",
                        "admin.csv-max-mib: must be between 1 and 65536, got 0",
                        "admin.users[0].password: too short (at least 12 characters)",
                        "admin.users[2].password: too long (73 bytes in UTF-8; bcrypt reads at most 72)",
                        "admin.users[3].password: still a placeholder like .env.example's \"change-me\": set a real secret",
                        "admin.api-tokens[0].token: still a placeholder like .env.example's \"change-me\": set a real secret "
                                + "(e.g. openssl rand -hex 24)"));
        assertThatThrownBy(() -> DimstreamConfig.parse(BASE.replace("{url: embedded}", "{url: embedded, password: \"${P}\"}"),
                "config t.yml", Map.of("P", "CHANGE_ME"))).hasMessage(
                "config t.yml: postgres.password: still a placeholder like .env.example's \"change-me\": set a real secret");
        assertThatThrownBy(() -> parse("admin: {port: 8080}\n")).hasMessage(
                "config t.yml: admin.users: at least one user (or one api-token) is required: every page needs a login");
        assertThatThrownBy(() -> parse("admin: {users: [{name: a, role: admin, password-hash: x}], colour: red}\n"))
                .hasMessageContaining("admin.colour: unknown key");
    }
}
