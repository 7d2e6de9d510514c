package io.dimstream.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.admin.HeadlessChromium;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.read.Diff;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.VersionRow;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;

/**
 * The admin's first look on the demo's data ({@link DemoAdmin}: {@code ./dimstream demo}'s burst,
 * event times in August 2025, long before now) in a 1280 px wide Chromium: each page opens on the
 * data without a parameter in its URL, says why, and stays readable at that width. Each page is
 * checked against what the database holds.
 */
class DemoFirstLookIT {

    private static final int WIDTH = 1280;

    @TempDir
    static Path dir;
    static DemoAdmin demo;

    @BeforeAll
    static void start() throws Exception {
        demo = DemoAdmin.start(dir, WIDTH, 900, false);
    }

    @AfterAll
    static void stop() throws Exception {
        if (demo != null) {
            demo.close();
        }
    }

    /** Nothing of the page is cut or scrolls sideways at 1280 px: wide tables scroll inside their own box. */
    private static void fitsTheWidth(String page) {
        Map<?, ?> widths = (Map<?, ?>) demo.driver.executeScript(
                "const e = document.documentElement; return {scroll: e.scrollWidth, client: e.clientWidth};");
        assertThat(((Number) widths.get("scroll")).longValue()).as(page + ": the page's width at " + WIDTH + " px (" + widths + ")")
                .isLessThanOrEqualTo(((Number) widths.get("client")).longValue());
    }

    private static double width(WebElement e) {
        return ((Number) demo.driver.executeScript("return arguments[0].getBoundingClientRect().width;", e)).doubleValue();
    }

    @Test
    void theHistoryOpensOnTheKeysVersionsAndZoomLandsOnVersions() throws Exception {
        List<VersionRow> c0001 = new HistoryQueries(demo.ds).history(demo.customer, List.of("C0001"));
        VersionRow first = c0001.get(0);
        VersionRow last = c0001.get(c0001.size() - 1);
        assertThat(last.validTo()).as("the demo's C0001 ends open").isNull();
        Duration history = Duration.between(first.validFrom(), last.validFrom());

        demo.open("history/customer?k=C0001", "timeline");
        HeadlessChromium.screenshot(demo.driver, "first-look-history");
        fitsTheWidth("history");
        // the window: the first version's start to a tenth of the history after the last change, not to now
        Instant to = first.validFrom().plus(history).plus(history.dividedBy(10));
        assertThat(demo.driver.findElement(By.id("window-from")).getText()).isEqualTo(first.validFrom().truncatedTo(ChronoUnit.SECONDS).toString());
        assertThat(demo.driver.findElement(By.id("window-to")).getText()).isEqualTo(to.truncatedTo(ChronoUnit.SECONDS).toString());
        assertThat(demo.driver.findElement(By.id("window-note")).getText()).startsWith("Showing the key's versions: from the first, at "
                + first.validFrom() + ", to a little after the latest change, at " + last.validFrom() + ": the current version runs on to now");

        // every version drawn, in order, each segment at least 1 px wide; the open version a tenth of the window, not most of it
        List<WebElement> segments = demo.driver.findElements(By.cssSelector("#version-lane rect"));
        List<String> covered = new ArrayList<>();
        List<String> narrow = new ArrayList<>();
        for (WebElement s : segments) {
            covered.add(s.getAttribute("data-first") + "-" + s.getAttribute("data-last"));
            if (width(s) < 1) {
                narrow.add(s.getAttribute("data-first") + ": " + width(s));
            }
        }
        assertThat(contiguous(covered)).as("segments " + covered).isEqualTo(c0001.size());
        assertThat(narrow).as("segments under 1 px").isEmpty();
        double plot = width(demo.driver.findElement(By.id("timeline")));
        WebElement current = segments.get(segments.size() - 1);
        assertThat(current.getAttribute("data-first")).isEqualTo(Integer.toString(c0001.size()));
        assertThat(width(current) / plot).as("the open version's share of the timeline").isBetween(0.05, 0.12);
        // most versions are drawn on their own (not merged into a group)
        long alone = segments.stream().filter(s -> s.getAttribute("data-first").equals(s.getAttribute("data-last"))).count();
        assertThat(alone).as("versions drawn on their own, of " + c0001.size()).isGreaterThanOrEqualTo(c0001.size() * 3L / 4);

        // zoom in: a window around the middle version's start, with versions in it
        demo.driver.findElement(By.id("zoom-in")).click();
        demo.await.until(d -> d.getCurrentUrl().contains("from="));
        Instant zFrom = Instant.parse(demo.driver.findElement(By.id("window-from")).getText());
        Instant zTo = Instant.parse(demo.driver.findElement(By.id("window-to")).getText());
        long inView = c0001.stream().filter(v -> v.validFrom().isBefore(zTo) && (v.validTo() == null || v.validTo().isAfter(zFrom))).count();
        assertThat(inView).as("versions in the zoomed window " + zFrom + " .. " + zTo).isGreaterThanOrEqualTo(c0001.size() / 3);
        assertThat(demo.driver.findElement(By.id("timeline")).getAttribute("aria-label"))
                .isEqualTo("timeline of " + c0001.size() + " versions, " + inView + " in view");
    }

    /** How many versions the segments' "first-last" ranges cover, when they follow each other from 1 without gap; -1 otherwise. */
    private static int contiguous(List<String> ranges) {
        int next = 1;
        for (String r : ranges) {
            String[] p = r.split("-");
            if (Integer.parseInt(p[0]) != next) {
                return -1;
            }
            next = Integer.parseInt(p[1]) + 1;
        }
        return next - 1;
    }

    @Test
    void theDiffOpensOnTheLastDayOfChangesAndListsTheChangesTheDatabaseHas() throws Exception {
        Instant latest;
        try (Connection c = demo.ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT max(valid_from) FROM " + demo.customer.table())) {
            rs.next();
            latest = rs.getObject(1, OffsetDateTime.class).toInstant();
        }
        assertThat(latest).as("the demo's event times: August 2025").isBefore(Instant.parse("2025-09-01T00:00:00Z"));
        Instant from = latest.minus(Duration.ofDays(1));
        // the entity as the admin reads it: the config's columns and those the demo's schema change added while running
        EntitySpec customer = new EntityCatalog(demo.config, demo.ds).spec("customer");
        Diff expected = new HistoryQueries(demo.ds).diff(customer, from, latest);

        demo.open("diff/customer", "diff-table");
        HeadlessChromium.screenshot(demo.driver, "first-look-diff");
        fitsTheWidth("diff");
        assertThat(demo.driver.findElement(By.id("diff-window")).getText()).isEqualTo("Comparing " + from + " with " + latest + ".");
        assertThat(demo.driver.findElement(By.id("diff-default")).getText()).startsWith("From is a day before to. To is the table's latest "
                + "change, at " + latest + " (now is ");
        List<String> header = demo.driver.findElements(By.cssSelector("#diff-table thead th")).stream().map(WebElement::getText).toList();
        assertThat(header.subList(2, header.size())).isEqualTo(customer.attributes());
        List<String> rows = new ArrayList<>();
        for (WebElement tr : demo.driver.findElements(By.cssSelector("#diff-table tbody tr"))) {
            List<WebElement> cells = tr.findElements(By.tagName("td"));
            List<String> changedColumns = new ArrayList<>();
            for (int i = 2; i < cells.size(); i++) {
                if (cells.get(i).getAttribute("class").contains("changed")) {
                    changedColumns.add(header.get(i));
                }
            }
            rows.add(cells.get(0).getText() + " " + cells.get(1).getText() + " " + changedColumns);
        }
        List<String> want = new ArrayList<>();
        expected.added().forEach(r -> want.add("added " + r.key().values() + " []"));
        expected.removed().forEach(r -> want.add("removed " + r.key().values() + " []"));
        expected.changed().forEach(c -> want.add("changed " + c.key().values() + " " + c.changedColumns()));
        assertThat(want).as("the demo's last day has changes").hasSizeGreaterThan(5);
        assertThat(rows).containsExactlyElementsOf(want);
    }

    @Test
    void theDashboardOpensOnTheSinksBatchesAndItsTableFitsTheWidth() throws Exception {
        Instant firstBatch;
        Instant lastBatch;
        try (Connection c = demo.ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT min(finished_at), max(finished_at) FROM dimstream.sink_batches")) {
            rs.next();
            firstBatch = rs.getObject(1, OffsetDateTime.class).toInstant();
            lastBatch = rs.getObject(2, OffsetDateTime.class).toInstant();
        }
        demo.open("", "dashboard-table");
        HeadlessChromium.screenshot(demo.driver, "first-look-dashboard");
        fitsTheWidth("dashboard");
        // the burst took under 15 minutes: the 15-minute window, ending now, which holds every batch
        assertThat(Duration.between(firstBatch, lastBatch)).isLessThan(Duration.ofMinutes(13));
        assertThat(demo.driver.findElement(By.cssSelector("nav.windows strong")).getText()).isEqualTo("15m");
        assertThat(demo.driver.findElement(By.id("window-note")).getText()).isEqualTo("Showing the last 15m: the smallest window that "
                + "holds the sink's batches, from " + firstBatch.truncatedTo(ChronoUnit.SECONDS) + " to "
                + lastBatch.truncatedTo(ChronoUnit.SECONDS) + ".");
        // the table is whole in the 1280 px page: no column cut, nothing to scroll
        WebElement table = demo.driver.findElement(By.id("dashboard-table"));
        WebElement box = table.findElement(By.xpath(".."));
        Map<?, ?> w = (Map<?, ?>) demo.driver.executeScript(
                "return {scroll: arguments[0].scrollWidth, client: arguments[0].clientWidth};", box);
        assertThat(((Number) w.get("scroll")).longValue()).as("the dashboard table's box " + w)
                .isLessThanOrEqualTo(((Number) w.get("client")).longValue());
    }

    @Test
    void theDlqPageShowsFiftyRecordsReadably() throws Exception {
        long records;
        try (Connection c = demo.ds.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM dimstream.dlq_records")) {
            rs.next();
            records = rs.getLong(1);
        }
        assertThat(records).as("the demo's malformed records, mirrored").isGreaterThanOrEqualTo(50);
        demo.open("dlq", "dlq-table");
        HeadlessChromium.screenshot(demo.driver, "first-look-dlq");
        fitsTheWidth("dlq");
        List<WebElement> rows = demo.driver.findElements(By.cssSelector("#dlq-table tbody tr"));
        assertThat(rows).hasSize(50);
        // every value cell at least 18 characters wide, every key and headers cell 7: never a character per line
        double ch = ((Number) demo.driver.executeScript(
                "const s = document.createElement('span'); s.style.fontFamily = 'ui-monospace, monospace'; s.textContent = '0000000000';"
                        + " document.body.appendChild(s); const w = s.getBoundingClientRect().width / 10; s.remove(); return w;")).doubleValue();
        List<String> narrow = new ArrayList<>();
        for (WebElement cell : demo.driver.findElements(By.cssSelector("#dlq-table td.bytes"))) {
            int least = cell.getAttribute("class").contains("value") ? 18 : 7;
            if (width(cell) < least * ch) {
                narrow.add(cell.getText() + ": " + width(cell) + " px, under " + least + " characters");
            }
        }
        assertThat(narrow).as("key, value and headers cells narrower than their least (" + ch + " px a character)").isEmpty();
        // each row at most eight lines of text high (a folded value shows 160 characters: six lines of 30
        // and more), so the 50 records take at most 50 x 8 lines
        double line = ((Number) demo.driver.executeScript(
                "return parseFloat(getComputedStyle(document.querySelector('#dlq-table td')).lineHeight);")).doubleValue();
        List<String> tall = new ArrayList<>();
        double tableHeight = 0;
        for (WebElement tr : rows) {
            double h = ((Number) demo.driver.executeScript("return arguments[0].getBoundingClientRect().height;", tr)).doubleValue();
            tableHeight += h;
            if (h > 8 * line + 12) {
                tall.add(tr.getAttribute("data-id") + ": " + h + " px");
            }
        }
        assertThat(tall).as("rows taller than eight lines of " + line + " px").isEmpty();
        assertThat(tableHeight).isLessThan(50 * (8 * line + 12));
        // the whole page: the table's bound plus 1,500 px for the rest (heading, notes, the empty rejects and gaps
        // tables): under 10,000 px at 19.6 px a line, where a value a character per line made it 15,000
        long page = ((Number) demo.driver.executeScript("return document.documentElement.scrollHeight;")).longValue();
        assertThat((double) page).as("the DLQ page's height, its table " + tableHeight + " px").isLessThan(50 * (8 * line + 12) + 1500);
    }
}
