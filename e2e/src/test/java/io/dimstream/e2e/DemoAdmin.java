package io.dimstream.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.admin.AdminServer;
import io.dimstream.admin.AdminSettings;
import io.dimstream.admin.HeadlessChromium;
import io.dimstream.app.demo.StreamingDemo;
import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.AdminConfig;
import io.dimstream.db.entity.EntitySpec;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.openqa.selenium.By;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * What {@code ./dimstream demo} shows, for the browser tests on the demo's data: its bundled config
 * with an embedded broker and PostgreSQL, {@link StreamingDemo}'s seeded burst of {@link #EVENTS}
 * customer events, the admin with one admin login as {@code DemoCommand} starts it, and a headless
 * Chromium of the given size logged in to it.
 */
final class DemoAdmin implements AutoCloseable {

    /** The burst of {@code ./dimstream demo} (its --events default). */
    static final int EVENTS = 3000;
    private static final String PASSWORD = "demo browser password";

    final DimstreamConfig config;
    final EntitySpec customer;
    final DataSource ds;
    final ChromeDriver driver;
    final WebDriverWait await;
    final String base;
    /** What the demo printed. */
    final StringWriter printed;
    private final StreamingDemo.Running running;
    private final AdminServer.Running admin;

    private DemoAdmin(DimstreamConfig config, StreamingDemo.Running running, StringWriter printed, AdminServer.Running admin,
                      ChromeDriver driver) {
        this.config = config;
        this.customer = config.entities().get(0).toEntitySpec();
        this.running = running;
        this.printed = printed;
        this.ds = running.service().database().dataSource();
        this.admin = admin;
        this.driver = driver;
        this.await = new WebDriverWait(driver, Duration.ofSeconds(30));
        this.base = admin.url();
    }

    /** The demo's burst loaded, the admin started and a browser of {@code width} x {@code height} px logged in. */
    static DemoAdmin start(Path dir, int width, int height, boolean hideScrollbars) throws Exception {
        HeadlessChromium.assumeInstalled();
        DimstreamConfig config = DimstreamConfig.parse(demoConfig(), "config demo/demo.yml (bundled)", Map.of());
        StreamingDemo demo = new StreamingDemo(config, dir.resolve("data"), new PrometheusMeterRegistry(PrometheusConfig.DEFAULT));
        StringWriter printed = new StringWriter();
        StreamingDemo.Running running = demo.start(new PrintWriter(printed), EVENTS);
        AdminServer.Running admin = null;
        ChromeDriver driver = null;
        try {
            // the admin as DemoCommand starts it: one admin login, plain http on 127.0.0.1
            AdminConfig adminConfig = new AdminConfig("127.0.0.1", 0, AdminConfig.DEFAULT_SESSION_TIMEOUT, false,
                    List.of(new AdminConfig.User("demo", AdminConfig.Role.ADMIN, Optional.empty(), Optional.of(PASSWORD))), List.of());
            DimstreamConfig withAdmin = new DimstreamConfig(config.kafka(), config.postgres(), config.entities(), config.batchSize(),
                    config.sink(), Optional.of(adminConfig));
            admin = AdminServer.start(withAdmin, running.service().database().dataSource(), AdminSettings.onPort(0));
            driver = HeadlessChromium.start(width, height, hideScrollbars);
            DemoAdmin d = new DemoAdmin(config, running, printed, admin, driver);
            d.login();
            return d;
        } catch (Exception | Error e) {
            if (driver != null) {
                driver.quit();
            }
            if (admin != null) {
                admin.close();
            }
            running.close();
            throw e;
        }
    }

    private void login() {
        driver.get(base + "login");
        driver.findElement(By.id("username")).sendKeys("demo");
        driver.findElement(By.id("password")).sendKeys(PASSWORD);
        driver.findElement(By.id("login-button")).click();
        await.until(d -> !d.findElements(By.id("dashboard-table")).isEmpty());
    }

    /** Opens {@code path} (no leading slash) and waits for the element of id {@code id}. */
    void open(String path, String id) {
        driver.get(base + path);
        await.until(d -> !d.findElements(By.id(id)).isEmpty());
    }

    private static String demoConfig() throws Exception {
        try (InputStream in = DemoAdmin.class.getClassLoader().getResourceAsStream("demo/demo.yml")) {
            assertThat(in).as("the demo's bundled config (cli's demo/demo.yml)").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            driver.quit();
        } finally {
            try {
                admin.close();
            } finally {
                running.close();
            }
        }
    }
}
