package io.dimstream.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A child process's resident memory ({@link LatencyBenchmark}): read from {@code /proc/PID/status}
 * every 500 ms, its peak ({@code VmHWM}) kept and its {@code VmRSS} noted every {@code everySeconds}.
 */
final class RssSampler implements Runnable {
    private final long pid;
    private final int everySeconds;
    private final AtomicLong peakKb = new AtomicLong();
    private final List<String> series = new ArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final long t0 = System.nanoTime();
    private Thread thread;

    RssSampler(long pid, int everySeconds) {
        this.pid = pid;
        this.everySeconds = everySeconds;
    }

    void start() {
        thread = new Thread(this, "rss-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void run() {
        long next = 0;
        while (running.get()) {
            long kb = readKb("VmRSS:");
            if (kb < 0) {
                return;
            }
            peakKb.accumulateAndGet(readKb("VmHWM:"), Math::max);
            long elapsed = (System.nanoTime() - t0) / 1_000_000_000L;
            if (elapsed >= next) {
                synchronized (series) {
                    series.add(elapsed + " s: " + kb / 1024 + " MiB");
                }
                next = elapsed + everySeconds;
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    long readKb(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return -1;
    }

    void stop() throws InterruptedException {
        running.set(false);
        if (thread != null) {
            thread.join();
        }
    }

    void report() {
        synchronized (series) {
            System.out.println("service RSS (dimstream run alone, child JVM): " + String.join(", ", series));
        }
        System.out.printf(Locale.ROOT, "service peak RSS (VmHWM): %d MiB%n", peakKb.get() / 1024);
    }
}
