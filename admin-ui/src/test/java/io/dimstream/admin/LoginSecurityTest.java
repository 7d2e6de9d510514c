package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.testtools.JavalinTest;
import io.javalin.testtools.TestConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Logins and sessions over real HTTP (review M1, M2, L2; hostile checks 9 and 10): the throttle
 * under 200 parallel requests, lock-outs that stay on the attacker's client, a reverse proxy's
 * X-Forwarded-For believed only from a trusted proxy, session lifetime, and log lines a user name
 * cannot forge. The test server trusts 127.0.0.1 as its proxy, so each test browser is a client of
 * its own through the X-Forwarded-For it sends.
 */
class LoginSecurityTest {

    private final AdminFixture f = AdminFixture.get();

    /** A clock the test moves. */
    static final class MovingClock extends Clock {
        volatile Instant now = Instant.parse("2026-03-01T08:00:00Z");

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    private AdminServer behindProxy() {
        return new AdminServer(f.configWith("  trusted-proxies: [127.0.0.1, \"::1\"]\n"), f.ds, AdminSettings.onPort(0));
    }

    @Test
    void twoHundredParallelLoginsGetExactlyFive401sTheRest429AndAnotherClientStillLogsIn() {
        JavalinTest.test(behindProxy().app(), (app, client) -> {
            // what hostile check 9 sends: any 43-character value as both the login cookie and the form field
            String token = "A".repeat(43);
            HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
            List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String form = "_csrf=" + token + "&username=alice&password=guess-" + i + "&next=%2F";
                all.add(http.sendAsync(HttpRequest.newBuilder(URI.create(client.getOrigin() + "/login"))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .header("Cookie", "dimstream_login=" + token)
                        .header("X-Forwarded-For", "203.0.113.7")
                        .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString()));
            }
            Map<Integer, Integer> byStatus = new TreeMap<>();
            for (CompletableFuture<HttpResponse<String>> r : all) {
                byStatus.merge(r.join().statusCode(), 1, Integer::sum);
            }
            assertThat(byStatus).isEqualTo(Map.of(401, 5, 429, 195));

            // the right password from the attacking client: still refused, the lock is on that client
            assertThat(Browser.at(client.getOrigin(), "203.0.113.7").login("alice", AdminFixture.ADMIN_PASSWORD).statusCode())
                    .isEqualTo(429);
            // the real user, elsewhere: in
            Browser real = Browser.at(client.getOrigin(), "198.51.100.9");
            HttpResponse<String> ok = real.login("alice", AdminFixture.ADMIN_PASSWORD);
            assertThat(List.of(ok.statusCode(), ok.headers().firstValue("Location").orElse(""))).isEqualTo(List.of(303, "/"));
            assertThat(real.get("/").statusCode()).isEqualTo(200);
        });
    }

    @Test
    void strangersFailuresLockOnlyTheirOwnClientAndTwentyFromOneClientLockThatClientForEveryName() {
        JavalinTest.test(behindProxy().app(), (app, client) -> {
            Browser stranger = Browser.at(client.getOrigin(), "203.0.113.8");
            for (int i = 0; i < 5; i++) {
                assertThat(stranger.login("alice", "guess-" + i).statusCode()).isEqualTo(401);
            }
            HttpResponse<String> locked = stranger.login("alice", "guess-5");
            assertThat(List.of(locked.statusCode(), locked.headers().firstValue("Retry-After").orElse("")))
                    .isEqualTo(List.of(429, "900"));
            assertThat(Browser.at(client.getOrigin(), "198.51.100.10").login("alice", AdminFixture.ADMIN_PASSWORD).statusCode())
                    .isEqualTo(303);

            // random names from one client (hostile check 10): that client is locked, the real admin elsewhere is not
            Browser sprayer = Browser.at(client.getOrigin(), "203.0.113.9");
            for (int i = 0; i < 20; i++) {
                assertThat(sprayer.login("nobody-" + i, "x").statusCode()).isEqualTo(401);
            }
            assertThat(sprayer.login("victor", AdminFixture.VIEWER_PASSWORD).statusCode()).isEqualTo(429);
            assertThat(Browser.at(client.getOrigin(), "198.51.100.11").login("victor", AdminFixture.VIEWER_PASSWORD).statusCode())
                    .isEqualTo(303);
        });
    }

    @Test
    void withoutTrustedProxiesAForgedForwardedForGetsNoFreshBudget() {
        JavalinTest.test(new AdminServer(f.config, f.ds, AdminSettings.onPort(0)).app(), (app, client) -> {
            for (int i = 0; i < 5; i++) {
                assertThat(Browser.at(client.getOrigin(), "203.0.113." + i).login("alice", "guess-" + i).statusCode()).isEqualTo(401);
            }
            assertThat(Browser.at(client.getOrigin(), "203.0.113.99").login("alice", AdminFixture.ADMIN_PASSWORD).statusCode())
                    .isEqualTo(429);
        });
    }

    @Test
    void aPasswordLongerThanBcryptsSeventyTwoBytesIsAWrongPassword() {
        JavalinTest.test(new AdminServer(f.config, f.ds, AdminSettings.onPort(0)).app(), (app, client) -> {
            // bcrypt would compare the first 72 bytes only: the right password with anything appended must not pass
            String padded = AdminFixture.ADMIN_PASSWORD + " ".repeat(72 - AdminFixture.ADMIN_PASSWORD.length()) + "extra";
            HttpResponse<String> r = new Browser(client.getOrigin()).login("alice", padded);
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(r.body()).contains("<p class=\"error\" id=\"login-error\">Unknown user or wrong password.</p>");
        });
    }

    @Test
    void loggingInAgainFromTheSameBrowserEndsItsOldSession() {
        JavalinTest.test(new AdminServer(f.config, f.ds, AdminSettings.onPort(0)).app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            b.login("alice", AdminFixture.ADMIN_PASSWORD);
            String first = b.cookies.get("dimstream_session");
            b.login("alice", AdminFixture.ADMIN_PASSWORD);
            String second = b.cookies.get("dimstream_session");
            assertThat(second).isNotEqualTo(first);
            Browser old = new Browser(client.getOrigin());
            old.cookies.put("dimstream_session", first);
            assertThat(old.get("/").statusCode()).isEqualTo(303);
            assertThat(b.get("/").statusCode()).isEqualTo(200);
        });
    }

    @Test
    void aSessionEndsAtItsLifetimeThoughUsedAndAPollAloneDoesNotKeepItAlive() {
        MovingClock clock = new MovingClock();
        AdminServer server = new AdminServer(f.configWith("  session-timeout: PT30M\n  session-lifetime: PT2H\n"), f.ds,
                new AdminSettings(OptionalInt.of(0), null, clock));
        JavalinTest.test(server.app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            b.login("alice", AdminFixture.ADMIN_PASSWORD);
            for (int minutes = 20; minutes < 120; minutes += 20) {
                clock.now = clock.now.plus(Duration.ofMinutes(20));
                assertThat(b.get("/").statusCode()).as("used at minute %d", minutes).isEqualTo(200);
            }
            clock.now = clock.now.plus(Duration.ofMinutes(20));
            HttpResponse<String> expired = b.get("/history/customer");
            assertThat(List.of(expired.statusCode(), expired.headers().firstValue("Location").orElse("")))
                    .isEqualTo(List.of(303, "/login?next=%2Fhistory%2Fcustomer"));

            // only htmx polls for 31 minutes: the idle timeout ends it
            Browser tab = new Browser(client.getOrigin());
            tab.login("alice", AdminFixture.ADMIN_PASSWORD);
            for (int minutes = 10; minutes <= 30; minutes += 10) {
                clock.now = clock.now.plus(Duration.ofMinutes(10));
                assertThat(tab.get("/dashboard/table", "HX-Request", "true", "X-Dimstream-Poll", "1").statusCode())
                        .as("poll at minute %d", minutes).isEqualTo(200);
            }
            clock.now = clock.now.plus(Duration.ofMinutes(1));
            HttpResponse<String> poll = tab.get("/dashboard/table", "HX-Request", "true", "X-Dimstream-Poll", "1");
            assertThat(List.of(poll.statusCode(), poll.headers().firstValue("HX-Redirect").orElse("")))
                    .isEqualTo(List.of(401, "/login?next=%2F"));
        });
    }

    @Test
    void aUserNameCannotForgeALogLine() {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            // captureLogs off: JavalinTest would take System.err for itself
            JavalinTest.test(new AdminServer(f.config, f.ds, AdminSettings.onPort(0)).app(), new TestConfig(true, false), (app, client) ->
                    new Browser(client.getOrigin()).login("eve\r\n[main] INFO LoginPages - user alice (admin) logged in", "x"));
        } finally {
            System.setErr(err);
        }
        List<String> lines = captured.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("LoginPages")).toList();
        assertThat(lines).singleElement().asString().matches(".* INFO io\\.dimstream\\.admin\\.login\\.LoginPages - failed login for user "
                + java.util.regex.Pattern.quote("eve\\u000d\\u000a[main] INFO LoginPages - user alice (admin) logged in")
                + " from (127\\.0\\.0\\.1|0:0:0:0:0:0:0:1)");
    }
}
