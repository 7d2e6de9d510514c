package io.dimstream.bench;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Events produced at a steady rate from the harness's JVM, on a thread of their own, until
 * {@link #stop()} or a given count ({@link LatencyBenchmark}, {@link ResumeBenchmark},
 * {@link RollingRestartBenchmark}): {@link PipelineBenchmark#event} upserts of random keys, event
 * {@code i} at {@code EPOCH + i s} (so every event is a tracked change opening a version whose
 * {@code valid_from} names it). Per event: its send time ({@code nanoTime}) and, once
 * acknowledged, its source partition and offset. The same seed makes the same events again, so the
 * reference model of everything produced ({@link #expectedRows}) needs no copy of them.
 */
final class SteadyFeed implements Runnable {

    private static final int CHUNK = 1 << 16;

    private final String bootstrap;
    private final String topic;
    private final int rate;
    private final int keys;
    private final long seed;
    private final long limit;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger produced = new AtomicInteger();
    private final AtomicInteger acknowledged = new AtomicInteger();
    /** per event, in chunks: send nanoTime, (partition << 40 | offset) once acknowledged (else -1), the key. */
    private final List<long[]> sendNanos = new ArrayList<>();
    private final List<long[]> located = new ArrayList<>();
    private final List<String[]> keyIds = new ArrayList<>();
    private Thread thread;
    private volatile Exception failure;

    private SteadyFeed(String bootstrap, String topic, int rate, int keys, long seed, long limit) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.rate = rate;
        this.keys = keys;
        this.seed = seed;
        this.limit = limit;
    }

    /** Starts producing {@code rate} events/s over {@code keys} keys until {@link #stop()} ({@code limit} < 0) or {@code limit} events. */
    static SteadyFeed start(String bootstrap, String topic, int rate, int keys, long seed, long limit) {
        SteadyFeed f = new SteadyFeed(bootstrap, topic, rate, keys, seed, limit);
        f.thread = new Thread(f, "steady-feed");
        f.thread.setDaemon(true);
        f.thread.start();
        return f;
    }

    /** The next event's key from the generator (then its value from the same generator): the same for the same seed. */
    private static String nextKey(Random rnd, int keys) {
        return PipelineBenchmark.keyId('C', rnd.nextInt(keys));
    }

    @Override
    public void run() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            Random rnd = new Random(seed);
            long t0 = System.nanoTime();
            long periodNanos = 1_000_000_000L / rate;
            for (int i = 0; running.get() && (limit < 0 || i < limit); i++) {
                long due = t0 + i * periodNanos;
                long wait = due - System.nanoTime();
                if (wait > 1_000_000) {
                    Thread.sleep(wait / 1_000_000);
                }
                String id = nextKey(rnd, keys);
                byte[] value = PipelineBenchmark.event(id, i, rnd);
                int index = i;
                synchronized (this) {
                    if (i % CHUNK == 0) {
                        sendNanos.add(new long[CHUNK]);
                        long[] l = new long[CHUNK];
                        Arrays.fill(l, -1);
                        located.add(l);
                        keyIds.add(new String[CHUNK]);
                    }
                    keyIds.get(i / CHUNK)[i % CHUNK] = id;
                    sendNanos.get(i / CHUNK)[i % CHUNK] = System.nanoTime();
                }
                producer.send(new ProducerRecord<>(topic, id.getBytes(StandardCharsets.UTF_8), value), (md, e) -> {
                    if (e != null) {
                        failure = e;
                        return;
                    }
                    synchronized (this) {
                        located.get(index / CHUNK)[index % CHUNK] = LatencyBenchmark.sourceKey(md.partition(), md.offset());
                    }
                    acknowledged.incrementAndGet();
                });
                produced.set(i + 1);
            }
            producer.flush();
        } catch (Exception e) {
            failure = e;
        }
    }

    /** Events sent so far (the next one's index). */
    int produced() {
        return produced.get();
    }

    /** Stops producing (or waits for the limit), flushes, and checks every send was acknowledged. */
    void stop() throws InterruptedException {
        if (limit < 0) {
            running.set(false);
        }
        thread.join();
        check();
        if (acknowledged.get() != produced.get()) {
            throw new IllegalStateException(acknowledged.get() + " of " + produced.get() + " sends were acknowledged");
        }
    }

    void check() {
        if (failure != null) {
            throw new IllegalStateException("producing failed", failure);
        }
    }

    synchronized long sendNanos(int i) {
        return sendNanos.get(i / CHUNK)[i % CHUNK];
    }

    /** Event i's source partition and offset as {@link LatencyBenchmark#sourceKey}, or -1 while not acknowledged. */
    synchronized long located(int i) {
        return located.get(i / CHUNK)[i % CHUNK];
    }

    /** source key (partition, offset) -> event index, of every acknowledged event. */
    synchronized Map<Long, Integer> indexBySource() {
        int n = produced.get();
        Map<Long, Integer> m = new HashMap<>(n * 2);
        for (int i = 0; i < n; i++) {
            m.put(located(i), i);
        }
        return m;
    }

    /** The event {@code i}'s {@code valid_from}, in epoch seconds: the version it opens. */
    static long validFromEpochSecond(int i) {
        return PipelineBenchmark.EPOCH.getEpochSecond() + i;
    }

    /** The key ({@code customer_id}) of event i. */
    synchronized String keyOf(int i) {
        return keyIds.get(i / CHUNK)[i % CHUNK];
    }

    /** The rows the reference model makes of every event produced, in produce order (the events generated again). */
    List<ExpectedRow> expectedRows(EntitySpec spec) {
        int n = produced.get();
        List<Event> events = new ArrayList<>(n);
        Random rnd = new Random(seed);
        for (int i = 0; i < n; i++) {
            String id = nextKey(rnd, keys);
            byte[] value = PipelineBenchmark.event(id, i, rnd);
            long at = located(i);
            Source source = Source.kafka(topic, (int) (at >>> 40), at & ((1L << 40) - 1));
            NativeEventJson.Parsed parsed = NativeEventJson.parse(value, i, source);
            if (parsed.event() == null) {
                throw new IllegalStateException("event " + i + " does not parse: " + parsed.rejection());
            }
            events.add(parsed.event());
        }
        return new ReferenceModel(spec).rows(events);
    }

    /**
     * The table against the reference model of the whole feed, whole rows (as the fault ITs
     * compare): throws naming the first difference; returns the number of rows.
     */
    int assertTableExact(DataSource ds, EntitySpec spec) throws SQLException {
        List<ExpectedRow> expected = expectedRows(spec);
        List<ExpectedRow> actual = EntityTableReader.rows(ds, spec);
        if (!actual.equals(expected)) {
            int i = 0;
            while (i < Math.min(actual.size(), expected.size()) && actual.get(i).equals(expected.get(i))) {
                i++;
            }
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "the table (%,d rows) differs from the reference model of the %,d events produced (%,d rows); first difference at row %d:%n"
                            + "  table:    %s%n  expected: %s", actual.size(), produced.get(), expected.size(), i,
                    i < actual.size() ? actual.get(i) : "(none)", i < expected.size() ? expected.get(i) : "(none)"));
        }
        return actual.size();
    }
}
