package io.dimstream.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.admin.AdminServer;
import io.dimstream.admin.HeadlessChromium;
import io.dimstream.admin.AdminSettings;
import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.app.kafka.EmbeddedKafka;
import io.dimstream.app.testing.FeedFixtures;
import io.dimstream.app.service.DimstreamService;
import io.dimstream.app.service.ServiceOptions;
import io.dimstream.app.replay.ReplaySettings;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.jobs.JobState;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.jobs.ReplaySource;
import io.dimstream.db.jobs.ReplayTarget;
import io.dimstream.db.testing.TestPostgres;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * The whole system, end to end: an embedded Kafka broker, one PostgreSQL, the streaming pipeline
 * with its admin workers (the ReplayWorker among them) and the admin UI; in Debian's headless
 * Chromium an admin logs in, starts a replay of the whole topic into the live table from the form,
 * and watches the job page (htmx polling, no inline script) until it shows SUCCEEDED. The table is
 * then unchanged, every column of every row. Screenshots go to e2e/target/screenshots. Without
 * chromium the test is skipped, unless DIMSTREAM_REQUIRE_BROWSER=1 (CI), where it fails.
 */
class ReplayBrowserIT {

    private static final Path SHOTS = Path.of("target", "screenshots");
    private static final String PASSWORD = "e2e admin password";
    private static final String ENTITY = "customer_e2e";
    private static final String TOPIC = "crm.customers_e2e";
    private static final String TABLE = "dim_customer_e2e";

    private static void shot(WebDriver driver, String name) throws Exception {
        File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(f.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    private static DimstreamConfig config(String bootstrap) {
        String hash = new BCryptPasswordEncoder(4).encode(PASSWORD);
        return DimstreamConfig.parse("""
                kafka:
                  bootstrap-servers: %s
                postgres:
                  url: %s
                entities:
                  - name: %s
                    topic: %s
                    format: json
                    table: %s
                    key: [customer_id]
                    tracked: [email, full_name, country, city, loyalty_tier]
                    type1: [last_login]
                    lateness-horizon: P30D
                    columns: {customer_id: text, email: text, full_name: text, country: text, city: text,
                              loyalty_tier: text, last_login: bigint}
                admin:
                  users:
                    - {name: alice, role: admin, password-hash: "%s"}
                """.formatted(bootstrap, TestPostgres.jdbcUrl(), ENTITY, TOPIC, TABLE, hash), "e2e config", Map.of());
    }

    /** Every column of every row (lineage and loaded_at included) as JSON text, in key and valid_from order. */
    private static List<String> wholeRows(DataSource ds) throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = ds.getConnection();
             PreparedStatement p = c.prepareStatement("SELECT to_jsonb(t)::text FROM " + TABLE + " t ORDER BY customer_id, valid_from");
             ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
                out.add(rs.getString(1));
            }
        }
        return out;
    }

    @Test
    void anAdminStartsALiveReplayInTheBrowserWatchesItFinishAndTheTableIsUnchanged(@TempDir Path dir) throws Exception {
        HeadlessChromium.assumeInstalled();
        Files.createDirectories(SHOTS);
        DataSource ds = TestPostgres.dataSource();
        ReplayJobs jobs = new ReplayJobs(ds);
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            kafka.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1)));
            DimstreamConfig config = config(kafka.bootstrapServers());
            // small replay batches with a pause between them, so the progress bar has steps to show
            ServiceOptions options = new ServiceOptions(dir.resolve("data"), "replay-browser-it", 3, Duration.ofHours(1))
                    .withAdminWorkers(true)
                    .withReplay(new ReplaySettings(Duration.ofMillis(200), Duration.ofSeconds(10), 100, Duration.ofMillis(150)));
            List<CustomerFeed.FeedRecord> feed = new CustomerFeed(11, 30, Instant.parse("2025-08-01T00:00:00Z")).next(900);
            try (DimstreamService pipeline = DimstreamService.start(config, options, new SimpleMeterRegistry());
                 AdminServer.Running admin = AdminServer.start(config, ds, AdminSettings.onPort(0))) {
                FeedFixtures.produce(kafka.bootstrapServers(), TOPIC, feed, Map.of());
                assertThat(pipeline.awaitCaughtUp(feed.size(), Duration.ofMinutes(3))).as("pipeline caught up").isTrue();
                List<String> before = wholeRows(ds);
                assertThat(before).isNotEmpty();

                ChromeDriver driver = HeadlessChromium.start(1400, 1000, false);
                try {
                    WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(20));
                    driver.get(admin.url() + "replay?entity=" + ENTITY);
                    wait.until(d -> d.getCurrentUrl().contains("/login"));
                    driver.findElement(By.id("username")).sendKeys("alice");
                    driver.findElement(By.id("password")).sendKeys(PASSWORD);
                    driver.findElement(By.id("login-button")).click();
                    wait.until(d -> !d.findElements(By.id("replay-form")).isEmpty());
                    assertThat(new Select(driver.findElement(By.id("entity"))).getFirstSelectedOption().getText()).isEqualTo(ENTITY);
                    assertThat(driver.findElement(By.id("topic")).getAttribute("value")).isEqualTo(TOPIC);
                    driver.findElement(By.id("from-earliest")).click();
                    driver.findElement(By.id("target-live")).click();
                    shot(driver, "10-replay-form");
                    driver.findElement(By.id("start-replay")).click();

                    // the job page: htmx polls the progress fragment until the job has finished
                    wait.until(d -> d.getCurrentUrl().matches(".*/replay/\\d+$"));
                    long id = Long.parseLong(driver.getCurrentUrl().replaceAll(".*/replay/", ""));
                    // htmx swaps the progress fragment in place: an element found just before a swap is stale
                    // when read, so each read finds it again and a stale one is read again on the next poll
                    String firstState = new WebDriverWait(driver, Duration.ofSeconds(30), Duration.ofMillis(50))
                            .ignoring(org.openqa.selenium.StaleElementReferenceException.class)
                            .until(d -> d.findElement(By.id("job-state")).getText());
                    shot(driver, "11-replay-started");
                    List<String> seen = new ArrayList<>(List.of(firstState));
                    new WebDriverWait(driver, Duration.ofMinutes(3), Duration.ofMillis(200))
                            .ignoring(org.openqa.selenium.StaleElementReferenceException.class).until(d -> {
                        String s = d.findElement(By.id("job-state")).getText();
                        if (!seen.get(seen.size() - 1).equals(s)) {
                            seen.add(s);
                        }
                        return s.equals("SUCCEEDED") || s.equals("FAILED") || s.equals("CANCELLED");
                    });
                    shot(driver, "12-replay-finished");
                    ReplayJob job = jobs.find(id).orElseThrow();
                    assertThat(job.state()).as(job.toString()).isEqualTo(JobState.SUCCEEDED);
                    assertThat(driver.findElement(By.id("job-state")).getText()).isEqualTo("SUCCEEDED");
                    assertThat(seen.get(0)).isIn("QUEUED", "RUNNING");
                    // the page was refreshed by polling, never reloaded: still the same URL, the bar full
                    assertThat(driver.getCurrentUrl()).endsWith("/replay/" + id);
                    assertThat(driver.findElement(By.id("job-bar")).getAttribute("value")).isEqualTo(Long.toString(job.eventsTotal()));
                    assertThat(driver.findElement(By.id("job-bar")).getAttribute("max")).isEqualTo(Long.toString(job.eventsTotal()));
                    assertThat(driver.findElement(By.id("job-counts")).getText()).isEqualTo(job.eventsTotal() + " of " + job.eventsTotal()
                            + " events read (100 %), " + job.eventsRejected() + " rejected, 0 rows changed.");
                    assertThat(List.of(job.eventsTotal(), job.eventsRead(), job.rowsChanged(), job.requestedBy(), job.source(), job.target(),
                            job.topic())).isEqualTo(List.of((long) feed.size(), (long) feed.size(), 0L, "alice", ReplaySource.earliest(),
                            ReplayTarget.LIVE, TOPIC));
                    // a live replay of the whole topic changes nothing: every column of every row
                    assertThat(wholeRows(ds)).isEqualTo(before);

                    driver.get(admin.url() + "replay");
                    wait.until(d -> !d.findElements(By.id("replay-jobs")).isEmpty());
                    assertThat(driver.findElement(By.cssSelector("tr[data-job='" + id + "']")).getText())
                            .startsWith("#" + id + " " + ENTITY + " " + TOPIC + " earliest live SUCCEEDED " + feed.size() + " / "
                                    + feed.size() + " 0 alice");
                    shot(driver, "13-replay-list");
                    driver.get(admin.url() + "audit?actor=alice");
                    assertThat(driver.findElement(By.cssSelector("#audit-table tbody tr")).getText()).contains("alice replay.submit replay_job:" + id);
                    shot(driver, "14-audit");
                } finally {
                    driver.quit();
                }
            }
        }
    }
}
