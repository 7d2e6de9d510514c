package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.write.Scd2Writer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The history timeline in Debian's headless Chromium: a key with 64 versions (one a day from
 * 2025-01-01, the email changing each day, the plan once), a deep link to a window, the zoom-in
 * link (URL and segments change), the hover readout (history.js, loaded from /static under the
 * strict CSP), two versions compared. Screenshots at 1280 and 1920 px in target/screenshots.
 * Skipped without chromium unless DIMSTREAM_REQUIRE_BROWSER=1.
 */
class TimelineBrowserIT {

    private static final String ENTITY = """
              - name: timeline
                topic: crm.timeline
                table: ui_timeline
                key: [id]
                tracked: [email, plan]
                type1: [seen]
                lateness-horizon: unlimited
                columns: {id: text, email: text, plan: text, seen: bigint}
            """;

    private static AdminServer.Running admin;
    private static ChromeDriver driver;

    @BeforeAll
    static void start() throws Exception {
        HeadlessChromium.assumeInstalled();
        AdminFixture f = AdminFixture.get();
        DimstreamConfig config = f.configWith(ENTITY, "");
        EntitySpec spec = config.entity("timeline").toEntitySpec();
        EntityTables.ensure(f.ds, spec);
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("id", "T1");
            d.put("email", "e" + (i + 1) + "@x.io");
            d.put("plan", i < 30 ? "free" : "pro");
            d.put("seen", (long) i);
            events.add(Event.upsert(Instant.parse("2025-01-01T00:00:00Z").plus(Duration.ofDays(i)), d, i + 1,
                    Source.kafka("crm.timeline", 0, i + 1)));
        }
        new Scd2Writer(f.ds).apply(spec, events);
        admin = AdminServer.start(config, f.ds, AdminSettings.onPort(0));
        driver = HeadlessChromium.start(1280);
    }

    @AfterAll
    static void stop() {
        if (driver != null) {
            driver.quit();
        }
        if (admin != null) {
            admin.close();
        }
    }

    private static void shot(String name) throws Exception {
        HeadlessChromium.screenshot(driver, name);
    }

    private static void shots(String name) throws Exception {
        for (int width : new int[] {1280, 1920}) {
            driver.manage().window().setSize(new Dimension(width, width == 1280 ? 1000 : 1080));
            shot(name + "-" + width);
        }
        driver.manage().window().setSize(new Dimension(1280, 1000));
    }

    private static WebDriverWait await() {
        return new WebDriverWait(driver, Duration.ofSeconds(20));
    }

    private static List<Integer> visibleVersions() {
        return driver.findElements(By.cssSelector("#version-lane rect.seg")).stream()
                .map(e -> Integer.parseInt(e.getAttribute("data-first"))).toList();
    }

    @Test
    void zoomHoverAndCompareOnAKeyWithSixtyFourVersions() throws Exception {
        String base = admin.url();
        driver.get(base + "history/timeline?k=T1");
        await().until(d -> d.getCurrentUrl().contains("/login"));
        driver.findElement(By.id("username")).sendKeys("alice");
        driver.findElement(By.id("password")).sendKeys(AdminFixture.ADMIN_PASSWORD);
        driver.findElement(By.id("login-button")).click();
        await().until(d -> !d.findElements(By.id("timeline")).isEmpty());
        // the whole history runs to now: the 63 closed days are narrow next to the open version
        assertThat(driver.findElement(By.id("key-title")).getText()).isEqualTo("id = T1 · 64 versions");
        assertThat(driver.findElements(By.cssSelector("#timeline text.tick"))).isNotEmpty();
        shots("10-history-whole");

        // a deep link to 68 days: every version its own segment, ticks every 14 days
        driver.get(base + "history/timeline?k=T1&from=2025-01-01&to=2025-03-10");
        await().until(d -> !d.findElements(By.id("timeline")).isEmpty());
        List<Integer> all = new ArrayList<>();
        for (int i = 1; i <= 64; i++) {
            all.add(i);
        }
        assertThat(visibleVersions()).isEqualTo(all);
        assertThat(driver.findElements(By.cssSelector("#timeline text.tick")).stream().map(WebElement::getText).toList())
                .containsExactly("2025-01-02", "2025-01-16", "2025-01-30", "2025-02-13", "2025-02-27");
        assertThat(driver.findElements(By.id("narrow"))).isEmpty();
        shots("11-history-window");

        // zoom in: half the span around the centre, 2025-01-18 to 2025-02-21: v18..v51
        driver.findElement(By.id("zoom-in")).click();
        await().until(d -> d.getCurrentUrl().contains("from=2025-01-18T00%3A00%3A00Z&to=2025-02-21T00%3A00%3A00Z"));
        List<Integer> zoomed = new ArrayList<>();
        for (int i = 18; i <= 51; i++) {
            zoomed.add(i);
        }
        assertThat(visibleVersions()).isEqualTo(zoomed);
        assertThat(driver.findElement(By.id("window-from")).getText()).isEqualTo("2025-01-18T00:00:00Z");

        // hover over v20: the readout names the instant and the version
        WebElement v20 = driver.findElement(By.cssSelector("#version-lane rect.seg[data-first='20']"));
        new Actions(driver).moveToElement(v20).perform();
        await().until(d -> d.findElement(By.id("readout")).getText().contains("v20 "));
        String readout = driver.findElement(By.id("readout")).getText();
        assertThat(readout).startsWith("2025-01-20 ").endsWith(" UTC · v20 closed: 2025-01-20T00:00:00Z .. 2025-01-21T00:00:00Z");
        shots("12-history-hover");

        // compare v20 and v40: both emails changed, the plan (pro from v31) too, the partition not
        driver.findElement(By.id("a-20")).click();
        driver.findElement(By.id("b-40")).click();
        driver.findElement(By.id("compare-button")).click();
        await().until(d -> !d.findElements(By.id("compare")).isEmpty());
        assertThat(driver.getCurrentUrl()).contains("a=20").contains("b=40").contains("from=2025-01-18T00%3A00%3A00Z");
        List<String> changed = driver.findElements(By.cssSelector("#compare tbody tr")).stream()
                .filter(r -> !r.findElements(By.cssSelector("td.changed")).isEmpty())
                .map(r -> r.findElement(By.tagName("th")).getText()).toList();
        assertThat(changed).containsExactly("valid_from", "valid_to", "email", "plan", "seen", "surrogate_key", "record_hash", "offset");
        List<String> emailRow = driver.findElements(By.cssSelector("#compare tbody tr")).stream()
                .filter(r -> r.findElement(By.tagName("th")).getText().equals("email"))
                .flatMap(r -> r.findElements(By.tagName("td")).stream()).map(WebElement::getText).toList();
        assertThat(emailRow).containsExactly("e20@x.io", "e40@x.io");
        driver.findElement(By.id("compare-section")).getLocation();
        new Actions(driver).scrollToElement(driver.findElement(By.id("compare-section"))).perform();
        shots("13-history-compare");
    }
}
