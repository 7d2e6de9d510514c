package io.dimstream.bench;

import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;

/**
 * The soak's feed ({@link SoakBenchmark}), a pure function of its seed and the event's index, so
 * the reference can be computed again after the run from the number of events produced alone.
 *
 * <p>Event {@code i} belongs to a key drawn at random among {@code keys}; its event time is
 * {@code base + i * (1,000,000 / rate)} microseconds (so event time keeps pace with the clock and
 * no key ever sees a late event); one event in 500 is a delete (the next upsert of the key
 * resurrects it). The tracked columns change once per {@code versionEvery} seconds of event time
 * (a key's first event after such a boundary starts a version); every other upsert changes the
 * type-1 column only, which the event memory remembers, so the prune has work.
 */
final class SoakFeed {

    /** One event: its key (the Kafka record key too), its JSON value, and the writer's view of it. */
    record Item(String key, byte[] json, Event event) {
    }

    private final Random rnd;
    private final int keys;
    private final Instant base;
    private final long microsPerEvent;
    private final long eventsPerVersion;
    private int next;

    SoakFeed(long seed, int keys, Instant base, int rate, int versionEverySeconds) {
        this.rnd = new Random(seed);
        this.keys = keys;
        this.base = base;
        this.microsPerEvent = 1_000_000L / rate;
        this.eventsPerVersion = (long) rate * versionEverySeconds;
    }

    int produced() {
        return next;
    }

    Instant eventTime(long i) {
        return base.plusNanos(i * microsPerEvent * 1000);
    }

    /** The next event; {@code withJson} false skips the JSON (the reference needs only the event). */
    Item next(boolean withJson) {
        int i = next++;
        int k = rnd.nextInt(keys);
        boolean delete = rnd.nextInt(500) == 0;
        String id = PipelineBenchmark.keyId('C', k);
        Instant t = eventTime(i);
        Source source = Source.line("soak", i);
        if (delete) {
            String json = withJson ? "{\"op\":\"delete\",\"event_time\":\"" + DateTimeFormatter.ISO_INSTANT.format(t)
                    + "\",\"data\":{\"customer_id\":\"" + id + "\"}}" : null;
            return new Item(id, bytes(json), Event.delete(t, Map.of("customer_id", id), i, source));
        }
        long epoch = i / eventsPerVersion;
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("customer_id", id);
        data.put("email", "u" + k + "." + epoch + "@example.com");
        data.put("full_name", "Customer " + id);
        data.put("country", "DE");
        data.put("city", "City " + (k + epoch) % 100);
        data.put("loyalty_tier", epoch % 2 == 0 ? "gold" : "silver");
        data.put("last_login", 1_700_000_000L + i);
        String json = null;
        if (withJson) {
            StringBuilder b = new StringBuilder(256);
            b.append("{\"op\":\"upsert\",\"event_time\":\"").append(DateTimeFormatter.ISO_INSTANT.format(t)).append("\",\"data\":{");
            String sep = "";
            for (Map.Entry<String, Object> e : data.entrySet()) {
                b.append(sep).append('"').append(e.getKey()).append("\":");
                if (e.getValue() instanceof String s) {
                    b.append('"').append(s).append('"');
                } else {
                    b.append(e.getValue());
                }
                sep = ",";
            }
            json = b.append("}}").toString();
        }
        return new Item(id, bytes(json), Event.upsert(t, data, i, source));
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }
}
