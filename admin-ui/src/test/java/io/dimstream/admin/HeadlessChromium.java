package io.dimstream.admin;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium driven by its chromedriver, for the browser tests: started in a
 * throw-away profile, screenshots into {@code target/screenshots}. Without chromium the calling
 * test is skipped, unless {@code DIMSTREAM_REQUIRE_BROWSER=1} (CI), where it fails saying what to
 * install. Shipped in admin-ui's test-jar (this class only) for e2e's browser tests.
 */
public final class HeadlessChromium {

    public static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    public static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    public static final Path SHOTS = Path.of("target", "screenshots");

    private HeadlessChromium() {
    }

    /** Skips the calling test (or fails it under DIMSTREAM_REQUIRE_BROWSER=1) when chromium is not installed. */
    public static void assumeInstalled() {
        if (Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER)) {
            return;
        }
        String why = "browser test needs Debian's chromium and chromedriver (" + CHROMIUM + ", " + CHROMEDRIVER
                + "): apt-get install -y chromium chromium-driver";
        if ("1".equals(System.getenv("DIMSTREAM_REQUIRE_BROWSER"))) {
            throw new IllegalStateException(why + " (DIMSTREAM_REQUIRE_BROWSER=1: not skipping)");
        }
        assumeTrue(false, "SKIPPED: " + why);
    }

    /** A headless Chromium whose window is {@code width} x 1000 px. */
    public static ChromeDriver start(int width) throws Exception {
        return start(width, 1000, false);
    }

    /**
     * A headless Chromium whose window is {@code width} x {@code height} px, in a throw-away profile;
     * {@code hideScrollbars}: screenshots without scroll bars (the README's images).
     */
    public static ChromeDriver start(int width, int height, boolean hideScrollbars) throws Exception {
        Path profile = Files.createTempDirectory("dimstream-chromium-");
        ChromeOptions o = new ChromeOptions();
        o.setBinary(CHROMIUM.toFile());
        o.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=" + width + "," + height, "--user-data-dir=" + profile);
        if (hideScrollbars) {
            o.addArguments("--hide-scrollbars");
        }
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        Files.createDirectories(SHOTS);
        return new ChromeDriver(service, o);
    }

    /** The current page as {@code target/screenshots/<name>.png}. */
    public static void screenshot(ChromeDriver driver, String name) throws Exception {
        File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(f.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
