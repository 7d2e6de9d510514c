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
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.Keys;
import org.openqa.selenium.Rectangle;
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
 * strict CSP), two versions compared. A key with 500 versions: drag-to-zoom on the timeline
 * (the window in the URL, every version in it its own segment), the readout by keyboard (Tab to the
 * timeline, arrows, Home, End). Screenshots at 1280 and 1920 px in target/screenshots.
 * Skipped without chromium unless DIMSTREAM_REQUIRE_BROWSER=1.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
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

    /** Key L1's versions, one a day from {@link #MANY_START}. */
    private static final int MANY = 500;
    private static final Instant MANY_START = Instant.parse("2024-01-01T00:00:00Z");
    private static final DateTimeFormatter READOUT = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC);

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
        // L1: 500 versions, one a day from 2024-01-01 (the email changing each day)
        for (int i = 0; i < MANY; i++) {
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("id", "L1");
            d.put("email", "l" + (i + 1) + "@x.io");
            d.put("plan", "free");
            d.put("seen", (long) i);
            events.add(Event.upsert(MANY_START.plus(Duration.ofDays(i)), d, 1000 + i,
                    Source.kafka("crm.timeline", 1, i + 1)));
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

    /**
     * Waits, polling, for a condition; an element htmx replaced between finding it and reading it
     * (a stale reference) counts as not yet, as a missing one does.
     */
    private static org.openqa.selenium.support.ui.FluentWait<org.openqa.selenium.WebDriver> await() {
        return new WebDriverWait(driver, Duration.ofSeconds(20)).ignoring(org.openqa.selenium.StaleElementReferenceException.class);
    }

    private static List<Integer> visibleVersions() {
        return driver.findElements(By.cssSelector("#version-lane rect.seg")).stream()
                .map(e -> Integer.parseInt(e.getAttribute("data-first"))).toList();
    }

    @Test
    @Order(1)
    void zoomHoverAndCompareOnAKeyWithSixtyFourVersions() throws Exception {
        String base = admin.url();
        driver.get(base + "history/timeline?k=T1");
        await().until(d -> d.getCurrentUrl().contains("/login"));
        driver.findElement(By.id("username")).sendKeys("alice");
        driver.findElement(By.id("password")).sendKeys(AdminFixture.ADMIN_PASSWORD);
        driver.findElement(By.id("login-button")).click();
        await().until(d -> !d.findElements(By.id("timeline")).isEmpty());
        // the whole history: the 64 days, the open version drawn a tenth of them on (the test's now is long after)
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

        // zoom in: half the span around the middle version's start (v33, 2025-02-02), 2025-01-16 to 2025-02-19: v16..v49
        driver.findElement(By.id("zoom-in")).click();
        await().until(d -> d.getCurrentUrl().contains("from=2025-01-16T00%3A00%3A00Z&to=2025-02-19T00%3A00%3A00Z"));
        List<Integer> zoomed = new ArrayList<>();
        for (int i = 16; i <= 49; i++) {
            zoomed.add(i);
        }
        assertThat(visibleVersions()).isEqualTo(zoomed);
        assertThat(driver.findElement(By.id("window-from")).getText()).isEqualTo("2025-01-16T00:00:00Z");

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
        assertThat(driver.getCurrentUrl()).contains("a=20").contains("b=40").contains("from=2025-01-16T00%3A00%3A00Z");
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

    /** The x (viewport px) where the timeline draws instant {@code t}, from the SVG's own data attributes. */
    private static int xOf(WebElement svg, Instant t) {
        Rectangle box = svg.getRect();
        double scale = box.getWidth() / Double.parseDouble(svg.getAttribute("width"));
        long from = Long.parseLong(svg.getAttribute("data-from"));
        long to = Long.parseLong(svg.getAttribute("data-to"));
        double x = Double.parseDouble(svg.getAttribute("data-left"))
                + (t.toEpochMilli() - from) / (double) (to - from) * Double.parseDouble(svg.getAttribute("data-plot"));
        return (int) Math.round(box.getX() + x * scale);
    }

    private static Instant param(String url, String name) {
        for (String p : url.substring(url.indexOf('?') + 1).split("&")) {
            if (p.startsWith(name + "=")) {
                return Instant.parse(java.net.URLDecoder.decode(p.substring(name.length() + 1), java.nio.charset.StandardCharsets.UTF_8));
            }
        }
        throw new AssertionError("no " + name + "= in " + url);
    }

    /** v{n} of L1 as its segment's title says it. */
    private static String title(int n) {
        Instant s = MANY_START.plus(Duration.ofDays(n - 1));
        return n == MANY ? "v" + n + " current: " + s + " .. open" : "v" + n + " closed: " + s + " .. " + s.plus(Duration.ofDays(1));
    }

    @Test
    @Order(2)
    void fiveHundredVersionsDragToZoomAndTheReadoutByKeyboard() throws Exception {
        String base = admin.url();
        // the 500 days in one window: 840 px, so the days are drawn as groups of narrow versions
        driver.get(base + "history/timeline?k=L1&from=2024-01-01T00:00:00Z&to=2025-05-15T00:00:00Z");
        await().until(d -> !d.findElements(By.id("timeline")).isEmpty());
        assertThat(driver.findElement(By.id("key-title")).getText()).isEqualTo("id = L1 · 500 versions");
        assertThat(driver.findElement(By.id("narrow")).getText()).startsWith("500 versions are narrower than 3 px");
        shots("14-history-500");

        // drag across 2024-04-10 .. 2024-05-10 on the version lane: the page opens that window
        WebElement svg = driver.findElement(By.id("timeline"));
        Rectangle lane = driver.findElement(By.cssSelector("#version-lane rect.seg")).getRect();
        int y = lane.getY() + lane.getHeight() / 2;
        Instant a = Instant.parse("2024-04-10T00:00:00Z");
        Instant b = Instant.parse("2024-05-10T00:00:00Z");
        String before = driver.getCurrentUrl();
        new Actions(driver).moveToLocation(xOf(svg, a), y).clickAndHold()
                .moveToLocation((xOf(svg, a) + xOf(svg, b)) / 2, y)
                .moveToLocation(xOf(svg, b), y).release().perform();
        await().until(d -> !d.getCurrentUrl().equals(before) && !d.findElements(By.id("timeline")).isEmpty());
        String url = driver.getCurrentUrl();
        Instant from = param(url, "from");
        Instant to = param(url, "to");
        // a pixel is about 0.6 of a day here: the window is the dragged span to within a day
        assertThat(Duration.between(a, from).abs()).isLessThan(Duration.ofDays(1));
        assertThat(Duration.between(b, to).abs()).isLessThan(Duration.ofDays(1));
        assertThat(url).contains("k=L1");
        assertThat(driver.findElement(By.id("window-from")).getText()).isEqualTo(from.toString());
        assertThat(driver.findElement(By.id("window-to")).getText()).isEqualTo(to.toString());
        // every version valid in the window is its own segment, none grouped
        List<Integer> expected = new ArrayList<>();
        for (int n = 1; n <= MANY; n++) {
            Instant start = MANY_START.plus(Duration.ofDays(n - 1));
            if (start.isBefore(to) && start.plus(Duration.ofDays(1)).isAfter(from)) {
                expected.add(n);
            }
        }
        assertThat(visibleVersions()).isEqualTo(expected);
        assertThat(driver.findElements(By.id("narrow"))).isEmpty();
        shots("15-history-500-dragged");

        // the same window from its URL alone (a deep link)
        driver.get(url);
        await().until(d -> !d.findElements(By.id("timeline")).isEmpty());
        assertThat(visibleVersions()).isEqualTo(expected);

        // the keyboard: Tab from the last window link reaches the timeline; the arrows move the readout
        driver.executeScript("document.getElementById('whole').focus()");
        new Actions(driver).sendKeys(Keys.TAB).perform();
        assertThat(driver.switchTo().activeElement().getAttribute("id")).isEqualTo("timeline");
        WebElement readout = driver.findElement(By.id("readout"));
        assertThat(readout.getAttribute("aria-live")).isEqualTo("polite");
        int first = expected.get(0);
        int last = expected.get(expected.size() - 1);
        new Actions(driver).sendKeys(Keys.ARROW_RIGHT).perform();
        // the first version in view began before the window: the readout is at the window's start
        await().until(d -> readout.getText().contains("v" + first + " "));
        assertThat(readout.getText()).isEqualTo(READOUT.format(from) + " · " + title(first));
        new Actions(driver).sendKeys(Keys.ARROW_RIGHT).perform();
        Instant second = MANY_START.plus(Duration.ofDays(first));
        await().until(d -> readout.getText().contains("v" + (first + 1) + " "));
        assertThat(readout.getText()).isEqualTo(READOUT.format(second) + " · " + title(first + 1));
        assertThat(readout.getAttribute("data-version")).isEqualTo(String.valueOf(first + 1));
        assertThat(driver.findElements(By.cssSelector("#version-lane rect.seg.kbd")).stream()
                .map(e -> e.getAttribute("data-first")).toList()).containsExactly(String.valueOf(first + 1));
        new Actions(driver).sendKeys(Keys.END).perform();
        await().until(d -> readout.getText().contains("v" + last + " "));
        assertThat(readout.getText()).isEqualTo(READOUT.format(MANY_START.plus(Duration.ofDays(last - 1))) + " · " + title(last));
        shots("16-history-500-keyboard");
        new Actions(driver).sendKeys(Keys.ARROW_LEFT).perform();
        await().until(d -> readout.getText().contains("v" + (last - 1) + " "));
        new Actions(driver).sendKeys(Keys.HOME).perform();
        await().until(d -> readout.getText().contains("v" + first + " "));
        assertThat(readout.getText()).isEqualTo(READOUT.format(from) + " · " + title(first));

        // "-" follows the zoom-out link: twice the span around the same centre, still a URL
        String zoomOut = driver.findElement(By.id("zoom-out")).getAttribute("href");
        new Actions(driver).sendKeys("-").perform();
        await().until(d -> d.getCurrentUrl().equals(zoomOut));
    }
}
