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
 * install.
 */
final class HeadlessChromium {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Path SHOTS = Path.of("target", "screenshots");

    private HeadlessChromium() {
    }

    /** Skips the calling test (or fails it under DIMSTREAM_REQUIRE_BROWSER=1) when chromium is not installed. */
    static void assumeInstalled() {
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
    static ChromeDriver start(int width) throws Exception {
        Path profile = Files.createTempDirectory("dimstream-chromium-");
        ChromeOptions o = new ChromeOptions();
        o.setBinary(CHROMIUM.toFile());
        o.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--window-size=" + width + ",1000", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().build();
        Files.createDirectories(SHOTS);
        return new ChromeDriver(service, o);
    }

    /** The current page as {@code target/screenshots/<name>.png}. */
    static void screenshot(ChromeDriver driver, String name) throws Exception {
        File f = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(f.toPath(), SHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
