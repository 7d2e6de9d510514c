package io.dimstream.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * What uses the service meanwhile ({@link SoakBenchmark}), through the admin's JSON API with an
 * API token, as an orchestrator would: every {@code pageEvery} seconds a key's history, the table
 * as of a recent instant (a page of it) and the dashboard; every {@code replayEvery} seconds a live
 * replay of the source's last {@code replayBack} events per partition, queued with
 * {@code POST /api/replays} and awaited; each job must end SUCCEEDED with 0 rejected, anything else
 * is a failure. Its rows changed are reported, not required to be 0: a job's range ends at the
 * source's end offsets when it starts, so under a steady feed its last records may reach the table
 * before the sink's (the sink then finds them there). The table compared exactly at the end is
 * what shows that the replays and the sink agree.
 */
final class SoakActivity {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String base;
    private final String token;
    private final int pageEvery;
    private final int replayEvery;
    private final Supplier<long[]> sourceEnds;
    private final long replayBack;
    private final LongFunction<Instant> eventTime;
    private final Supplier<Integer> produced;
    private final int keys;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong pages = new AtomicLong();
    private final AtomicLong pageFailures = new AtomicLong();
    private final List<String> replays = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    SoakActivity(String base, String token, int pageEvery, int replayEvery, Supplier<long[]> sourceEnds, long replayBack,
                 LongFunction<Instant> eventTime, Supplier<Integer> produced, int keys) {
        this.base = base;
        this.token = token;
        this.pageEvery = pageEvery;
        this.replayEvery = replayEvery;
        this.sourceEnds = sourceEnds;
        this.replayBack = replayBack;
        this.eventTime = eventTime;
        this.produced = produced;
        this.keys = keys;
    }

    void start() {
        threads.add(new Thread(this::fetchPages, "soak-admin-pages"));
        threads.add(new Thread(this::replayLoop, "soak-replays"));
        threads.forEach(t -> {
            t.setDaemon(true);
            t.start();
        });
    }

    /** Stops asking for pages and replays; a replay under way is awaited. */
    void stop() throws InterruptedException {
        running.set(false);
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(10));
        }
    }

    private void fetchPages() {
        Random rnd = new Random(11);
        while (running.get()) {
            int n = produced.get();
            String key = PipelineBenchmark.keyId('C', rnd.nextInt(keys));
            String at = URLEncoder.encode(eventTime.apply(Math.max(0, n - 2000L)).toString(), StandardCharsets.UTF_8);
            for (String path : List.of("/api/history/customer?k=" + key, "/api/asof/customer?at=" + at + "&page=" + (1 + rnd.nextInt(5)),
                    "/api/dashboard")) {
                try {
                    HttpResponse<String> r = get(path);
                    pages.incrementAndGet();
                    if (r.statusCode() != 200) {
                        fail("GET " + path + ": " + r.statusCode() + " " + abbreviate(r.body()));
                    }
                } catch (IOException e) {
                    fail("GET " + path + ": " + e);
                } catch (InterruptedException e) {
                    return;
                }
            }
            sleep(pageEvery);
        }
    }

    private void replayLoop() {
        while (running.get()) {
            sleep(replayEvery);
            if (!running.get()) {
                return;
            }
            try {
                replayOnce();
            } catch (IOException e) {
                fail("replay: " + e);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void replayOnce() throws IOException, InterruptedException {
        long[] ends = sourceEnds.get();
        List<String> from = new ArrayList<>();
        for (int p = 0; p < ends.length; p++) {
            from.add(p + ":" + Math.max(0, ends[p] - replayBack));
        }
        String body = JSON.writeValueAsString(Map.of("entity", "customer", "from", "offsets",
                "offsets", String.join(",", from), "target", "live"));
        long t0 = System.nanoTime();
        HttpResponse<String> r = http.send(request("/api/replays").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 201) {
            fail("POST /api/replays " + body + ": " + r.statusCode() + " " + abbreviate(r.body()));
            return;
        }
        long id = JSON.readTree(r.body()).path("job").path("id").asLong();
        JsonNode job;
        do {
            Thread.sleep(1000);
            job = JSON.readTree(get("/api/replays/" + id).body()).path("job");
        } while (!job.path("finished").asBoolean());
        String line = String.format(Locale.ROOT, "replay job %d (%s): %s, %d/%d events read, %d rows changed, %d rejected, %.1f s",
                id, String.join(",", from), job.path("state").asText(), job.path("events_read").asLong(),
                job.path("events_total").asLong(), job.path("rows_changed").asLong(), job.path("events_rejected").asLong(),
                (System.nanoTime() - t0) / 1e9);
        System.out.println(line);
        synchronized (replays) {
            replays.add(line);
        }
        if (!"SUCCEEDED".equals(job.path("state").asText()) || job.path("events_rejected").asLong() != 0) {
            fail(line + " (expected SUCCEEDED, 0 rejected): " + job.path("outcome").asText());
        }
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60)).header("Authorization", "Bearer " + token);
    }

    private void fail(String what) {
        System.out.println("FAILED: " + what);
        synchronized (failures) {
            failures.add(what);
        }
    }

    private void sleep(int seconds) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (running.get() && System.nanoTime() < until) {
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static String abbreviate(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }

    long pagesFetched() {
        return pages.get();
    }

    List<String> replayLines() {
        synchronized (replays) {
            return new ArrayList<>(replays);
        }
    }

    List<String> failures() {
        synchronized (failures) {
            return new ArrayList<>(failures);
        }
    }
}
