package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.write.Scd2Writer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The admin in Debian's headless Chromium (Selenium, /usr/bin/chromedriver): log in, open a key's
 * history and see its versions, a corrected key's history now and as known before its correction
 * (the form, the banner, back to now), change the as-of instant and see the table change; every page
 * visited (and the DLQ, quarantine, replay, audit, columns pages, the key search, an integrity report, a
 * replay job part-way, a previewed rebuild's job and preview pages and an error page) is checked with axe-core (no
 * serious or critical violation, {@link Axe}) and shot at 1280 and 1920 px; the first Tab reaches
 * the skip link, which has a visible focus ring. Screenshots go to target/screenshots. Without chromium the test is skipped, unless
 * DIMSTREAM_REQUIRE_BROWSER=1 (CI), where it fails.
 */
class AdminBrowserIT {


    private static AdminServer.Running admin;
    private static ChromeDriver driver;
    private static final List<String> violations = new java.util.ArrayList<>();
    /** Pages wider than the window at 1280 px (a page-level horizontal scroll bar; wide tables scroll in their own box instead). */
    private static final List<String> overflowing = new java.util.ArrayList<>();

    /** Key K1 of an entity of its own, written in two transactions: the second a late event that corrects the first's January version. */
    private static final String CORRECTED = """
              - name: corrected
                topic: crm.corrected
                table: ui_corrected
                key: [id]
                tracked: [plan]
                lateness-horizon: unlimited
                columns: {id: text, plan: text}
            """;

    /** An instant between the two transactions of {@link #CORRECTED}. */
    private static Instant betweenTransactions;

    private static Event plan(long seq, String t, String plan) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", "K1");
        d.put("plan", plan);
        return Event.upsert(Instant.parse(t), d, seq, Source.kafka("crm.corrected", 0, seq));
    }

    @BeforeAll
    static void start() throws Exception {
        HeadlessChromium.assumeInstalled();
        AdminFixture f = AdminFixture.get();
        DimstreamConfig config = f.configWith(CORRECTED, "");
        EntitySpec corrected = config.entity("corrected").toEntitySpec();
        EntityTables.ensure(f.ds, corrected);
        Scd2Writer w = new Scd2Writer(f.ds);
        w.apply(corrected, List.of(plan(1, "2025-01-01T00:00:00Z", "free"), plan(2, "2025-03-01T00:00:00Z", "pro")));
        try (Connection c = f.ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT clock_timestamp()")) {
            rs.next();
            betweenTransactions = rs.getObject(1, OffsetDateTime.class).toInstant();
        }
        w.apply(corrected, List.of(plan(3, "2025-02-01T00:00:00Z", "basic")));
        admin = AdminServer.start(config, f.ds, AdminSettings.onPort(0));
        driver = HeadlessChromium.start(1400);
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

    /**
     * The accessibility check of one page (axe-core; its serious and critical violations are kept
     * in {@link #violations}, asserted empty once every page is seen), its screenshots at 1280 and 1920 px wide, and at
     * each width whether the page as a whole is wider than the window ({@link #overflowing}, asserted empty too); the
     * window goes back to its usual size after.
     */
    private static void accessibleAt(String name) throws Exception {
        for (String v : Axe.seriousViolations(driver)) {
            violations.add(name + " " + driver.getCurrentUrl() + ": " + v);
        }
        for (int width : new int[] {1280, 1920}) {
            driver.manage().window().setSize(new Dimension(width, 1000));
            shot(name + "-" + width);
            Object wider = ((org.openqa.selenium.JavascriptExecutor) driver).executeScript(
                    "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
            if (((Number) wider).intValue() > 0) {
                overflowing.add(name + " at " + width + " px: " + wider + " px wider than the window");
            }
        }
        driver.manage().window().setSize(new Dimension(1400, 1000));
    }

    /**
     * Waits, polling, for a condition; an element htmx replaced between finding it and reading it
     * (a stale reference) counts as not yet, as a missing one does.
     */
    private static org.openqa.selenium.support.ui.FluentWait<org.openqa.selenium.WebDriver> await() {
        return new WebDriverWait(driver, Duration.ofSeconds(15)).ignoring(org.openqa.selenium.StaleElementReferenceException.class);
    }

    private static List<String> rows(String tableId) {
        return driver.findElements(By.cssSelector("#" + tableId + " tbody tr")).stream().map(WebElement::getText).toList();
    }

    @Test
    void logInOpenAHistoryAndMoveTheAsOfInstant() throws Exception {
        String base = admin.url();
        driver.get(base + "history/customer?k=C1");
        await().until(d -> d.getCurrentUrl().contains("/login"));
        driver.findElement(By.id("username")).sendKeys("alice");
        driver.findElement(By.id("password")).sendKeys(AdminFixture.ADMIN_PASSWORD);
        shot("01-login");
        accessibleAt("a11y-login");
        driver.findElement(By.id("login-button")).click();

        // back where we wanted to go: the key's history, four versions
        try {
            await().until(d -> !d.findElements(By.id("versions")).isEmpty());
        } catch (org.openqa.selenium.TimeoutException e) {
            shot("02-history-missing");
            throw new AssertionError("no version table at " + driver.getCurrentUrl() + ":\n" + driver.getPageSource(), e);
        }
        assertThat(driver.findElement(By.id("key-title")).getText()).isEqualTo("customer_id = C1 · 4 versions");
        assertThat(rows("versions")).hasSize(4);
        assertThat(rows("versions").get(0)).startsWith("1 2025-01-01T00:00:00Z 2025-02-01T00:00:00Z closed a@x.io Paris 1");
        assertThat(rows("versions").get(2)).startsWith("3 2025-03-01T00:00:00Z 2025-04-01T00:00:00Z deleted a@x.io Lyon 2");
        assertThat(rows("versions").get(3)).startsWith("4 2025-04-01T00:00:00Z open current b@x.io Lyon 3");
        assertThat(driver.findElements(By.cssSelector("#version-lane rect.seg"))).hasSize(4);
        assertThat(driver.findElements(By.cssSelector("#version-lane rect.seg.current"))).hasSize(1);
        shot("02-history");
        accessibleAt("a11y-history");

        // a key whose January version a late event corrected: the versions it wrote are marked, the correction listed
        driver.get(base + "history/corrected?k=K1");
        await().until(d -> !d.findElements(By.id("corrections")).isEmpty());
        assertThat(rows("versions").get(0)).startsWith("1 2025-01-01T00:00:00Z 2025-02-01T00:00:00Z closed correction #1 free");
        assertThat(rows("versions").get(1)).startsWith("2 2025-02-01T00:00:00Z 2025-03-01T00:00:00Z closed late-placed correction #1 basic");
        assertThat(rows("corrections")).hasSize(1);
        assertThat(rows("corrections").get(0)).startsWith("1 2025-01-01T00:00:00Z 2025-03-01T00:00:00Z closed free");
        accessibleAt("a11y-history-corrections");
        // as known between the two transactions, through the form: the URL is the state
        driver.findElement(By.id("known")).sendKeys(betweenTransactions.toString());
        driver.findElement(By.id("known-button")).click();
        await().until(d -> !d.findElements(By.id("known-banner")).isEmpty());
        assertThat(driver.getCurrentUrl()).contains("k=K1").contains("known=");
        assertThat(driver.findElement(By.id("known-instant")).getText()).isEqualTo(betweenTransactions.toString());
        assertThat(rows("versions").get(0)).startsWith("1 2025-01-01T00:00:00Z 2025-03-01T00:00:00Z closed corrected later (#1) free");
        assertThat(rows("versions").get(1)).startsWith("2 2025-03-01T00:00:00Z open current pro");
        assertThat(rows("versions")).hasSize(2);
        accessibleAt("a11y-history-known");
        driver.findElement(By.id("known-now")).click();
        await().until(d -> d.findElements(By.id("known-banner")).isEmpty() && !d.findElements(By.id("versions")).isEmpty());
        assertThat(rows("versions")).hasSize(3);

        driver.get(base + "asof/customer?at=2025-02-10T00:00:00&tz=UTC");
        await().until(d -> !d.findElements(By.id("asof-table")).isEmpty());
        assertThat(rows("asof-table")).containsExactly(
                "C1 a@x.io Lyon 2 2025-02-01T00:00:00Z 2025-03-01T00:00:00Z",
                "C2 " + AdminFixture.XSS + " Rome 5 2025-01-15T00:00:00Z NULL");
        shot("03-asof-february");
        accessibleAt("a11y-asof");

        // change the instant in the form: April 10 in Berlin
        WebElement at = driver.findElement(By.id("at"));
        driver.executeScript("arguments[0].value = arguments[1]", at, "2025-04-10T02:00:00");
        new Select(driver.findElement(By.id("tz"))).selectByValue("Europe/Berlin");
        driver.findElement(By.id("show")).click();
        await().until(d -> d.findElement(By.id("as-of-instant")).getText().equals("2025-04-10T00:00:00Z"));
        assertThat(rows("asof-table")).containsExactly(
                "C1 b@x.io Lyon 3 2025-04-01T00:00:00Z NULL",
                "C2 " + AdminFixture.XSS + " Rome 5 2025-01-15T00:00:00Z NULL",
                "C3 c@x.io NULL NULL 2025-02-15T00:00:00Z NULL");
        shot("04-asof-april");

        driver.get(base);
        await().until(d -> !d.findElements(By.id("dashboard-table")).isEmpty());
        assertThat(driver.findElement(By.cssSelector("tr[data-entity=customer]")).getText()).startsWith("customer ui_customer 4 3 6 0"); // columns, current rows, versions, deleted keys
        shot("05-dashboard");
        // the charts: five per entity, drawn (not zero-sized) and coloured by dashboard.css under the strict CSP
        var charts = driver.findElements(By.cssSelector("div.entity-charts[data-entity=customer] svg.chart"));
        assertThat(charts.stream().map(c -> c.getAttribute("aria-label").replaceAll(" over time.*", "")).toList()).containsExactly(
                "customer: Events by class (events)", "customer: Rows changed (rows)", "customer: Sink lag (records)",
                "customer: Batch duration (ms)", "customer: Set aside (records)");
        assertThat(charts.get(1).getSize().getWidth()).isGreaterThan(100);
        assertThat(driver.findElement(By.cssSelector("div.entity-charts[data-entity=customer] g.series-rows path")).getCssValue("stroke"))
                .isEqualTo("rgb(31, 111, 209)");
        assertThat(driver.findElement(By.cssSelector("li[data-health=stuck]")).getText())
                .isEqualTo("stuck partitions (records left, nothing committed for 5 min): none");
        driver.findElement(By.linkText("1h")).click();
        await().until(d -> d.getCurrentUrl().endsWith("/?window=1h"));
        shot("06-dashboard-1h");

        accessibleAt("a11y-dashboard");

        // keyboard: the first Tab reaches the skip link, drawn with a visible focus ring, and it
        // moves focus to the page's main region
        driver.findElement(By.tagName("body")).sendKeys(Keys.TAB);
        WebElement skip = driver.switchTo().activeElement();
        assertThat(skip.getText()).isEqualTo("Skip to content");
        assertThat(skip.getCssValue("outline-style")).isEqualTo("solid");
        skip.sendKeys(Keys.ENTER);
        await().until(d -> "main".equals(d.switchTo().activeElement().getAttribute("id")));

        // a replay job part-way through (two partitions), for its page
        io.dimstream.db.jobs.ReplayJobs jobs = new io.dimstream.db.jobs.ReplayJobs(AdminFixture.get().ds);
        long job = jobs.submit("customer", "crm.customers", io.dimstream.db.jobs.ReplaySource.at(java.time.Instant.parse("2025-01-01T00:00:00Z")),
                io.dimstream.db.jobs.ReplayTarget.SHADOW, "alice");
        assertThat(jobs.claim("browser-test", List.of("customer"), Duration.ofMinutes(30)).orElseThrow().id()).isEqualTo(job);
        try (java.sql.Connection c = AdminFixture.get().ds.getConnection()) {
            c.setAutoCommit(false);
            io.dimstream.db.jobs.ReplayJobs.start(c, job, List.of(new io.dimstream.db.jobs.PartitionProgress(0, 0, 10, 0),
                    new io.dimstream.db.jobs.PartitionProgress(1, 5, 15, 5)));
            io.dimstream.db.jobs.ReplayJobs.advance(c, job, java.util.Map.of(0, 4L, 1, 8L), 0, 3);
            c.commit();
        }

        // a previewed rebuild waiting for its swap (an empty shadow: every key would be removed), for its preview page
        long ready = jobs.submit("customer", "crm.customers", io.dimstream.db.jobs.ReplaySource.earliest(),
                io.dimstream.db.jobs.ReplayTarget.SHADOW, true, "alice");
        io.dimstream.db.jobs.ShadowTables.create(AdminFixture.get().ds, io.dimstream.db.jobs.ShadowTables.shadowSpec(AdminFixture.get().customer, ready));
        try (java.sql.Connection c = AdminFixture.get().ds.getConnection()) {
            io.dimstream.db.jobs.ReplayJobs.ready(c, ready, "shadow table filled to the end offsets; waiting for a swap or a discard");
        }

        // every other page (and the key search, an integrity report, a replay job, an error page)
        for (String[] p : new String[][] {
                {"diff/customer", "a11y-diff"}, {"dlq", "a11y-dlq"}, {"quarantine", "a11y-quarantine"},
                {"replay", "a11y-replay"}, {"audit", "a11y-audit"}, {"columns/customer", "a11y-columns"},
                {"history/customer", "a11y-history-search"}, {"integrity/customer", "a11y-integrity"},
                {"replay/" + job, "a11y-replay-job"}, {"replay/" + ready, "a11y-replay-job-ready"},
                {"replay/" + ready + "/preview", "a11y-replay-preview"}, {"history/no-such-entity", "a11y-error-404"}}) {
            driver.get(base + p[0]);
            await().until(d -> !d.findElements(By.id("main")).isEmpty());
            accessibleAt(p[1]);
        }
        assertThat(violations).as("axe: serious or critical violations (page, rule, help, first targets)").isEmpty();
        assertThat(overflowing).as("pages that scroll sideways as a whole").isEmpty();
    }
}
