package io.dimstream.admin;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;

/**
 * The accessibility check of the browser tests: injects axe-core (Deque's engine, the npm package
 * served as the {@code org.webjars.npm:axe-core} webjar, test scope) into the page the driver shows
 * and runs {@code axe.run} on the whole document. The app's Content-Security-Policy governs the
 * page's own scripts, not WebDriver's {@code executeScript} (evaluated through the DevTools
 * protocol), so the strict CSP stays as it is and axe still runs.
 */
final class Axe {

    private static final String SOURCE = load();

    private Axe() {
    }

    private static String load() {
        ClassLoader cl = Axe.class.getClassLoader();
        Properties p = new Properties();
        try (InputStream in = cl.getResourceAsStream("META-INF/maven/org.webjars.npm/axe-core/pom.properties")) {
            if (in == null) {
                throw new IllegalStateException("axe-core webjar (org.webjars.npm:axe-core) not on the test classpath");
            }
            p.load(in);
            String path = "META-INF/resources/webjars/axe-core/" + p.getProperty("version") + "/axe.min.js";
            try (InputStream js = cl.getResourceAsStream(path)) {
                if (js == null) {
                    throw new IllegalStateException("no " + path + " in the axe-core webjar");
                }
                return new String(js.readAllBytes(), StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The serious and critical violations of the page the driver shows, one line each: rule id,
     * impact, help text and the first three target selectors; empty when there are none.
     */
    @SuppressWarnings("unchecked")
    static List<String> seriousViolations(WebDriver driver) {
        JavascriptExecutor js = (JavascriptExecutor) driver;
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(60));
        js.executeScript(SOURCE);
        Object r = js.executeAsyncScript("""
                var done = arguments[arguments.length - 1];
                axe.run(document, {resultTypes: ['violations']}).then(function (res) {
                  done(res.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; })
                    .map(function (v) {
                      return {id: v.id, impact: v.impact, help: v.help,
                              targets: v.nodes.slice(0, 3).map(function (n) { return n.target.join(' '); })};
                    }));
                }, function (e) { done('axe.run failed: ' + e); });
                """);
        if (r instanceof String err) {
            throw new AssertionError(err);
        }
        return ((List<Map<String, Object>>) r).stream()
                .map(v -> v.get("id") + " (" + v.get("impact") + "): " + v.get("help") + " at "
                        + ((List<Object>) v.get("targets")).stream().map(String::valueOf).collect(Collectors.joining(", ")))
                .toList();
    }
}
