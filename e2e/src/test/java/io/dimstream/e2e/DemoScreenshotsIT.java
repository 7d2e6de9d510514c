package io.dimstream.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.admin.HeadlessChromium;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.AsOfSteps;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.VersionRow;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The README's admin screenshots, taken on the demo data ({@link DemoAdmin}: what
 * {@code ./dimstream demo} runs, its seeded burst of 3000 customer events and the admin), then in
 * Debian's headless Chromium at 1280 px the history of C0001 (its versions' span, the readout moved by
 * keyboard), the table as of one of its changes (the stepper, the changed rows marked) and the
 * dashboard (its one-hour window). The pages are checked against the demo's data (the key's version count, the step shown,
 * the marked rows' keys, the dashboard's version count) before they are shot.
 *
 * <p>Shots go to {@code e2e/target/screenshots/demo-*.png}; with {@code -Ddimstream.docs.images=true}
 * they are also copied over {@code docs/images/admin-history.png}, {@code admin-asof.png} and
 * {@code admin-dashboard.png}:
 * <pre>
 * ./mvnw -B -pl e2e -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *   -Dfailsafe.failIfNoSpecifiedTests=false -Dit.test=DemoScreenshotsIT -Ddimstream.docs.images=true
 * </pre>
 * Skipped without chromium unless {@code DIMSTREAM_REQUIRE_BROWSER=1}.
 */
class DemoScreenshotsIT {

    private static final Path SHOTS = Path.of("target", "screenshots");
    /** docs/images of the checkout (failsafe runs in the e2e folder). */
    private static final Path DOCS_IMAGES = Path.of("..", "docs", "images");

    /** {@code target/screenshots/demo-<name>.png}, and over {@code docs/images/<doc>} when asked. */
    private static void shot(WebDriver driver, String name, String doc) throws Exception {
        File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(f.toPath(), SHOTS.resolve("demo-" + name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        if (Boolean.getBoolean("dimstream.docs.images")) {
            assertThat(DOCS_IMAGES).as("docs/images of the checkout, from " + Path.of("").toAbsolutePath()).isDirectory();
            Files.copy(f.toPath(), DOCS_IMAGES.resolve(doc), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @Test
    void theAdminPagesOnTheDemoData(@TempDir Path dir) throws Exception {
        HeadlessChromium.assumeInstalled();
        Files.createDirectories(SHOTS);
        try (DemoAdmin demo = DemoAdmin.start(dir, 1280, 900, true)) {
            ChromeDriver driver = demo.driver;
            WebDriverWait await = demo.await;
            String base = demo.base;
            EntitySpec customer = demo.customer;
            HistoryQueries queries = new HistoryQueries(demo.ds);
            List<VersionRow> c0001 = queries.history(customer, List.of("C0001"));
            assertThat(c0001).as(demo.printed.toString()).hasSizeGreaterThan(10);
            // the history of C0001 over its versions' span (to the day), the readout moved by keyboard
            Instant from = c0001.get(0).validFrom().truncatedTo(ChronoUnit.DAYS);
            Instant to = c0001.get(c0001.size() - 1).validFrom().truncatedTo(ChronoUnit.DAYS).plus(Duration.ofDays(1));
            driver.get(base + "history/customer?k=C0001&from=" + from + "&to=" + to);
            await.until(d -> !d.findElements(By.id("timeline")).isEmpty());
            assertThat(driver.findElement(By.id("key-title")).getText())
                    .isEqualTo("customer_id = C0001 · " + c0001.size() + " versions");
            driver.executeScript("document.getElementById('timeline').focus()");
            for (int i = 0; i < 6; i++) {
                new Actions(driver).sendKeys(Keys.ARROW_RIGHT).perform();
            }
            await.until(d -> !d.findElement(By.id("readout")).getAttribute("data-version").isEmpty());
            shot(driver, "history", "admin-history.png");

            // the table as of one of C0001's changes (from its seventh version on, the first not a
            // delete): the stepper, the rows that changed at that step marked, C0001 among them
            Instant at = c0001.stream().skip(6).filter(v -> !v.deleted()).findFirst().orElseThrow().validFrom();
            AsOfSteps steps = queries.steps(customer, at);
            assertThat(steps.current()).isEqualTo(at);
            driver.get(base + "asof/customer?tz=UTC&at=" + at);
            await.until(d -> !d.findElements(By.id("asof-table")).isEmpty());
            assertThat(driver.findElement(By.id("step-current")).getText()).isEqualTo("state of the change at " + at);
            assertThat(driver.findElements(By.cssSelector("#asof-table tbody tr.changed-since-step td:first-child"))
                    .stream().map(e -> e.getText()).toList()).contains("C0001");
            shot(driver, "asof", "admin-asof.png");

            // the dashboard: state, counters and the charts of the burst over the last hour
            driver.get(base + "?window=1h");
            await.until(d -> !d.findElements(By.cssSelector("div.entity-charts[data-entity=customer] svg.chart")).isEmpty());
            assertThat(driver.findElement(By.cssSelector("tr[data-entity=customer]")).getText()).startsWith("customer dim_customer");
            shot(driver, "dashboard", "admin-dashboard.png");
        }
    }
}
