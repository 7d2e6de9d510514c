package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.write.Scd2Writer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The as-of stepper and the diff page in Debian's headless Chromium, on a small table whose every
 * state is known (entity {@code stepper}, three changes):
 *
 * <pre>
 * 2025-03-01  K1 a1 Paris, K2 b1 Rome, K5 e1 Nice
 * 2025-03-02  K3 c1 Oslo                       (added)
 * 2025-03-03  K1 a2 (email), K2 deleted, K3 Lima (city), K4 d1 Bern (added)
 * </pre>
 *
 * The admin runs on a clock fixed at 2025-03-03T12:00:00Z, so the diff page's defaults
 * ("yesterday vs now") are known: 2025-03-02T12:00 .. 2025-03-03T12:00. The stepper is walked by
 * its links (next, previous, first, last): each state's whole rows and which of them are marked
 * "changed since the previous step". The diff: the default instants filled in the form, the summary
 * (keys added, removed, changed, and per column), every listed key with its values, and the
 * drill-down link of a changed key opening that key's history in the diff's window. Screenshots at
 * 1280 and 1920 px ({@code asof-*}, {@code diff-*}).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AsOfDiffBrowserIT {

    private static final String ENTITY = """
              - name: stepper
                topic: crm.stepper
                table: ui_stepper
                key: [id]
                tracked: [email, city]
                lateness-horizon: unlimited
                columns: {id: text, email: text, city: text}
            """;

    static final Instant NOW = Instant.parse("2025-03-03T12:00:00Z");

    private static AdminServer.Running admin;
    private static ChromeDriver driver;

    @BeforeAll
    static void start() throws Exception {
        HeadlessChromium.assumeInstalled();
        AdminFixture f = AdminFixture.get();
        DimstreamConfig config = f.configWith(ENTITY, "");
        EntitySpec spec = config.entity("stepper").toEntitySpec();
        EntityTables.ensure(f.ds, spec);
        new Scd2Writer(f.ds).apply(spec, List.of(
                up(1, "2025-03-01", "K1", "a1", "Paris"),
                up(2, "2025-03-01", "K2", "b1", "Rome"),
                up(3, "2025-03-01", "K5", "e1", "Nice"),
                up(4, "2025-03-02", "K3", "c1", "Oslo"),
                up(5, "2025-03-03", "K1", "a2", "Paris"),
                Event.delete(Instant.parse("2025-03-03T00:00:00Z"), Map.of("id", "K2"), 6, Source.kafka("crm.stepper", 0, 6)),
                up(7, "2025-03-03", "K3", "c1", "Lima"),
                up(8, "2025-03-03", "K4", "d1", "Bern")));
        admin = AdminServer.start(config, f.ds, new AdminSettings(OptionalInt.of(0), null, Clock.fixed(NOW, ZoneOffset.UTC)));
        driver = HeadlessChromium.start(1280);
        driver.get(admin.url() + "login");
        await().until(d -> !d.findElements(By.id("username")).isEmpty());
        driver.findElement(By.id("username")).sendKeys("alice");
        driver.findElement(By.id("password")).sendKeys(AdminFixture.ADMIN_PASSWORD);
        driver.findElement(By.id("login-button")).click();
        await().until(d -> !d.getCurrentUrl().contains("/login"));
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

    private static Event up(long seq, String day, String id, String email, String city) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", id);
        d.put("email", email);
        d.put("city", city);
        return Event.upsert(Instant.parse(day + "T00:00:00Z"), d, seq, Source.kafka("crm.stepper", 0, seq));
    }

    /**
     * Waits, polling, for a condition; an element htmx replaced between finding it and reading it
     * (a stale reference) counts as not yet, as a missing one does.
     */
    private static org.openqa.selenium.support.ui.FluentWait<org.openqa.selenium.WebDriver> await() {
        return new WebDriverWait(driver, Duration.ofSeconds(20)).ignoring(org.openqa.selenium.StaleElementReferenceException.class);
    }

    private static void shots(String name) throws Exception {
        for (int width : new int[] {1280, 1920}) {
            driver.manage().window().setSize(new Dimension(width, width == 1280 ? 1000 : 1080));
            HeadlessChromium.screenshot(driver, name + "-" + width);
        }
        driver.manage().window().setSize(new Dimension(1280, 1000));
    }

    private static List<String> rows(String tableId) {
        return driver.findElements(By.cssSelector("#" + tableId + " tbody tr")).stream().map(WebElement::getText).toList();
    }

    /** The keys (first cell) of the as-of rows marked "changed since the previous step". */
    private static List<String> markedKeys() {
        return driver.findElements(By.cssSelector("#asof-table tbody tr.changed-since-step")).stream()
                .map(r -> r.findElement(By.tagName("td")).getText()).toList();
    }

    /** Clicks a stepper link and waits until the page shows the state of the change at {@code step}. */
    private static void step(String linkId, String step) {
        driver.findElement(By.id(linkId)).click();
        await().until(d -> d.findElement(By.id("step-current")).getText().equals("state of the change at " + step));
    }

    @Test
    @Order(1)
    void theStepperWalksTheTableChangeByChangeMarkingWhatChanged() throws Exception {
        driver.get(admin.url() + "asof/stepper?at=2025-03-02T06:00:00&tz=UTC");
        await().until(d -> !d.findElements(By.id("asof-table")).isEmpty());
        // between two changes: the state of 03-02, where K3 was added
        assertThat(driver.findElement(By.id("step-current")).getText()).isEqualTo("state of the change at 2025-03-02T00:00:00Z");
        assertThat(rows("asof-table")).containsExactly(
                "K1 a1 Paris 2025-03-01T00:00:00Z 2025-03-03T00:00:00Z",
                "K2 b1 Rome 2025-03-01T00:00:00Z 2025-03-03T00:00:00Z",
                "K3 c1 Oslo 2025-03-02T00:00:00Z 2025-03-03T00:00:00Z",
                "K5 e1 Nice 2025-03-01T00:00:00Z NULL");
        assertThat(markedKeys()).containsExactly("K3");
        assertThat(driver.findElement(By.id("asof-legend")).getText())
                .isEqualTo("version changed since the previous change (2025-03-01T00:00:00Z)");
        // the marked row is drawn differently from the others under the strict CSP (admin.css)
        WebElement marked = driver.findElement(By.cssSelector("#asof-table tbody tr.changed-since-step td"));
        WebElement plain = driver.findElement(By.cssSelector("#asof-table tbody tr:not(.changed-since-step) td"));
        assertThat(marked.getCssValue("background-color")).isNotEqualTo(plain.getCssValue("background-color"));
        shots("asof-step-2025-03-02");

        // forward: the last change; K1 (email), K3 (city) and K4 (added) changed, K2 gone, K5 as before
        step("step-next", "2025-03-03T00:00:00Z");
        assertThat(driver.getCurrentUrl()).contains("at=2025-03-03T00%3A00%3A00Z").contains("tz=UTC");
        assertThat(driver.findElement(By.id("as-of-instant")).getText()).isEqualTo("2025-03-03T00:00:00Z");
        assertThat(rows("asof-table")).containsExactly(
                "K1 a2 Paris 2025-03-03T00:00:00Z NULL",
                "K3 c1 Lima 2025-03-03T00:00:00Z NULL",
                "K4 d1 Bern 2025-03-03T00:00:00Z NULL",
                "K5 e1 Nice 2025-03-01T00:00:00Z NULL");
        assertThat(markedKeys()).containsExactly("K1", "K3", "K4");
        assertThat(driver.findElements(By.id("step-next"))).isEmpty();
        assertThat(driver.findElements(By.id("step-last"))).isEmpty();
        shots("asof-step-2025-03-03");

        // back: the state of 03-02 again, K3 marked
        step("step-prev", "2025-03-02T00:00:00Z");
        assertThat(markedKeys()).containsExactly("K3");
        assertThat(rows("asof-table")).hasSize(4).startsWith("K1 a1 Paris 2025-03-01T00:00:00Z 2025-03-03T00:00:00Z");

        // the first change: every row is new
        step("step-first", "2025-03-01T00:00:00Z");
        assertThat(rows("asof-table")).containsExactly(
                "K1 a1 Paris 2025-03-01T00:00:00Z 2025-03-03T00:00:00Z",
                "K2 b1 Rome 2025-03-01T00:00:00Z 2025-03-03T00:00:00Z",
                "K5 e1 Nice 2025-03-01T00:00:00Z NULL");
        assertThat(markedKeys()).containsExactly("K1", "K2", "K5");
        assertThat(driver.findElements(By.id("step-prev"))).isEmpty();
        assertThat(driver.findElements(By.id("step-first"))).isEmpty();
        assertThat(driver.findElement(By.id("asof-legend")).getText()).isEqualTo("version changed since the previous change");

        // and the last again, straight
        step("step-last", "2025-03-03T00:00:00Z");
        assertThat(markedKeys()).containsExactly("K1", "K3", "K4");
    }

    @Test
    @Order(2)
    void theDiffDefaultsToTheLastDayOfChangesSummarisesAndDrillsDownToAKey() throws Exception {
        driver.get(admin.url() + "diff/stepper");
        await().until(d -> !d.findElements(By.id("diff-summary")).isEmpty());
        // the defaults, filled in the form: the latest change (2025-03-03, before the fixed now) and a
        // day before it (as the server wrote them; the input's own value drops the ":00" seconds)
        assertThat(driver.findElement(By.id("from")).getDomAttribute("value")).isEqualTo("2025-03-02T00:00:00");
        assertThat(driver.findElement(By.id("to")).getDomAttribute("value")).isEqualTo("2025-03-03T00:00:00");
        assertThat(driver.findElement(By.id("from")).getDomProperty("value")).isEqualTo("2025-03-02T00:00");
        assertThat(driver.findElement(By.id("diff-window")).getText())
                .isEqualTo("Comparing 2025-03-02T00:00:00Z with 2025-03-03T00:00:00Z.");
        assertThat(driver.findElement(By.id("diff-default")).getText()).isEqualTo("From is a day before to. To is the table's latest "
                + "change, at 2025-03-03T00:00:00Z (now is 2025-03-03T12:00:00Z): the table is the same from then to now, so this "
                + "shows its last day of changes.");
        assertThat(driver.findElement(By.cssSelector("#diff-summary .diff-counts")).getText())
                .isEqualTo("Keys added: 1 · keys removed: 1 · keys changed: 2");
        assertThat(rows("diff-summary-table")).containsExactly("email 1", "city 1");
        assertThat(rows("diff-table")).containsExactly(
                "added [K4] d1 Bern",
                "removed [K2] b1 Rome",
                "changed [K1] a1 → a2 Paris",
                "changed [K3] c1 Oslo → Lima");
        // the changed cells, and only they, are marked
        assertThat(driver.findElements(By.cssSelector("#diff-table td.changed")).stream().map(WebElement::getText).toList())
                .containsExactly("a1 → a2", "Oslo → Lima");
        shots("diff-defaults");

        // the drill-down: K1's history in the diff's window and a tenth of it after
        driver.findElement(By.linkText("[K1]")).click();
        await().until(d -> !d.findElements(By.id("key-title")).isEmpty());
        assertThat(driver.getCurrentUrl()).endsWith(
                "/history/stepper?k=K1&from=2025-03-02T00%3A00%3A00Z&to=2025-03-03T02%3A24%3A00Z");
        assertThat(driver.findElement(By.id("key-title")).getText()).isEqualTo("id = K1 · 2 versions");
        assertThat(driver.findElement(By.id("window-from")).getText()).isEqualTo("2025-03-02T00:00:00Z");
        assertThat(driver.findElement(By.id("window-to")).getText()).isEqualTo("2025-03-03T02:24:00Z");
        // both versions drawn: K1's change at the diff's to (its default, the latest change) is in the window
        assertThat(driver.findElements(By.cssSelector("#version-lane rect")).stream().map(r -> r.getAttribute("data-first")).toList())
                .containsExactly("1", "2");
        List<List<String>> versions = driver.findElements(By.cssSelector("#versions tbody tr")).stream()
                .map(r -> r.findElements(By.tagName("td")).stream().skip(2).limit(6).map(WebElement::getText).toList())
                .toList();
        assertThat(versions).containsExactly(
                List.of("1", "2025-03-01T00:00:00Z", "2025-03-03T00:00:00Z", "closed", "a1", "Paris"),
                List.of("2", "2025-03-03T00:00:00Z", "open", "current", "a2", "Paris"));
        // the email cell of v2 is marked as changed from v1
        assertThat(driver.findElement(By.cssSelector("#versions tr[data-v='2'] td.changed")).getText()).isEqualTo("a2");
        shots("diff-drilldown-history");
    }
}
