package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.db.testing.TestPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class AdminCommandTest {

    @TempDir
    Path dir;

    private Path config(String admin) throws Exception {
        Path f = dir.resolve("dimstream.yml");
        Files.writeString(f, """
                postgres:
                  url: "%s"
                entities:
                  - {name: admincli, topic: t, table: admincli_customer, key: [id], tracked: [a], columns: {id: text, a: text}}
                """.formatted(TestPostgres.jdbcUrl()) + admin);
        return f;
    }

    @Test
    void aConfigWithoutAnAdminSectionIsRefusedWithExit2() throws Exception {
        Path f = config("");
        CliRun r = CliRun.of("admin", "--config", f.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("dimstream admin: config " + f
                + ": admin: required to start the web admin (port, users; see docs/config-reference.md)\n");
    }

    @Test
    void adminServesTheLoginPageUntilStopped() throws Exception {
        Path f = config("admin:\n  users: [{name: alice, role: admin, password-hash: "
                + "\"$2a$04$abcdefghijklmnopqrstuuOw0gJ3lYb5m0W9Yg3k3r1y9lH1m1bS2\"}]\n");
        AdminCommand cmd = new AdminCommand();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(cmd);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        CompletableFuture<Integer> running = CompletableFuture.supplyAsync(
                () -> cli.execute("--config", f.toString(), "--port", "0"));
        Pattern url = Pattern.compile("admin UI: (http://127\\.0\\.0\\.1:\\d+/) \\(PostgreSQL ");
        await().atMost(Duration.ofSeconds(60)).until(() -> url.matcher(out.toString()).find() || running.isDone());
        Matcher m = url.matcher(out.toString());
        assertThat(m.find()).as("out: %s err: %s", out, err).isTrue();

        HttpResponse<String> login = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(m.group(1) + "login")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(login.statusCode()).isEqualTo(200);
        assertThat(login.body()).contains("<form method=\"post\" action=\"/login\" id=\"login-form\">");

        cmd.stop();
        assertThat(running.get()).isZero();
        assertThat(out.toString()).doesNotContain("password=" + "postgres");
    }
}
