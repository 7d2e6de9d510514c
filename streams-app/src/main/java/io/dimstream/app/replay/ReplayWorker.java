package io.dimstream.app.replay;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.db.apply.BatchApplier;
import io.dimstream.db.jobs.ReplayJob;
import io.dimstream.db.jobs.ReplayJobs;
import io.dimstream.db.schema.EntityShapes;
import io.dimstream.db.sql.SqlFailures;
import io.dimstream.db.write.Scd2Writer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs replay jobs ({@code dimstream.replay_jobs}) of the entities this instance serves, one at a
 * time, on a thread of its own: claims a job under a lease (a QUEUED job, or a RUNNING one whose
 * lease expired because its worker died), keeps the lease alive with heartbeats while
 * {@link ReplayRun} runs it, and ends it: SUCCEEDED, FAILED with the reason, or released for the
 * next instance when this one stops (a transient failure, PostgreSQL restarting: released, resumed
 * from its last committed batch). Each poll of a job is one batch of the one apply pipeline
 * ({@link ReplayPoll}); cancellation is honoured between batches. A live job writes the entity
 * table (duplicates are no-ops, old events land as late events, see
 * {@link io.dimstream.db.event.ArrivalSeq#ofReplay}); a shadow job writes {@code <table>_shadow_<job>}
 * and swaps it in at its end offsets, or, submitted with {@code no_swap}, stops READY for a user to
 * preview, swap or discard it ({@code ShadowPreviews}).
 */
public final class ReplayWorker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplayWorker.class);

    private final String owner;
    private final Map<String, EntityPipeline> entities;
    private final DataSource ds;
    private final KafkaClients kafka;
    private final ReplaySettings settings;
    private final ReplayJobs jobs;
    private final Scd2Writer writer;
    private final BatchApplier applier;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicBoolean releaseOnStop = new AtomicBoolean(true);
    private final ScheduledExecutorService heartbeats;
    private final List<Long> claimed = Collections.synchronizedList(new ArrayList<>());
    private Thread thread;
    private final Map<String, Counter> outcomes = new ConcurrentHashMap<>();

    /** Counter of finished replay jobs (Prometheus {@code dimstream_replay_jobs_total}), see {@link #metrics}. */
    public static final String JOBS = "dimstream.replay.jobs";
    private static final String SUCCEEDED = "succeeded";
    private static final String FAILED = "failed";
    private static final String CANCELLED = "cancelled";

    /**
     * @param owner    this instance's name in the job leases (unique per running instance)
     * @param entities the entities this instance serves; jobs of others are left to instances that serve them
     */
    public ReplayWorker(String owner, List<EntityPipeline> entities, DataSource ds, String bootstrapServers, ReplaySettings settings) {
        this(owner, entities, ds, KafkaClients.of(bootstrapServers), settings,
                new EntityShapes(ds, entities.stream().map(EntityPipeline::entity).toList(), Set.of()));
    }

    /** @param shapes the entities' shapes, shared with the sink of the same service */
    public ReplayWorker(String owner, List<EntityPipeline> entities, DataSource ds, KafkaClients kafka, ReplaySettings settings,
                        EntityShapes shapes) {
        this.owner = owner;
        this.entities = new LinkedHashMap<>();
        entities.forEach(p -> this.entities.put(p.entity().name(), p));
        this.ds = ds;
        this.kafka = kafka;
        this.settings = settings;
        this.jobs = new ReplayJobs(ds);
        this.writer = new Scd2Writer(ds);
        this.applier = new BatchApplier(ds, writer, shapes);
        this.heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dimstream-replay-heartbeat");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Counts this worker's finished jobs on {@code registry}: {@value #JOBS} (counter, tags
     * {@code entity} and {@code outcome}: succeeded, failed, cancelled), registered at 0 for every
     * entity and outcome at once, so that the first failure after a start is an increase a
     * Prometheus rule sees. Call before {@link #start()}; without it the counts go nowhere.
     */
    public ReplayWorker metrics(MeterRegistry registry) {
        for (String entity : entities.keySet()) {
            for (String outcome : List.of(SUCCEEDED, FAILED, CANCELLED)) {
                outcomes.put(entity + "/" + outcome, Counter.builder(JOBS).description("replay jobs this instance finished, by outcome")
                        .tag("entity", entity).tag("outcome", outcome).register(registry));
            }
        }
        return this;
    }

    private void finished(ReplayJob job, String outcome) {
        Counter c = outcomes.get(job.entity() + "/" + outcome);
        if (c != null) {
            c.increment();
        }
    }

    public ReplayWorker start() {
        thread = new Thread(this::loop, "dimstream-replay-worker");
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    private void loop() {
        while (!stopping.get()) {
            try {
                Optional<ReplayJob> job = jobs.claim(owner, entities.keySet(), settings.lease());
                if (job.isPresent()) {
                    runClaimed(job.get());
                    continue;
                }
            } catch (SQLException | RuntimeException e) {
                LOG.warn("replay worker {}: cannot look for jobs (will retry): {}", owner, e.getMessage());
            }
            sleep(settings.pollInterval());
        }
    }

    /** The ids of the jobs this worker claimed, in order (a job resumed after a takeover appears in both workers). */
    public List<Long> claimed() {
        synchronized (claimed) {
            return List.copyOf(claimed);
        }
    }

    private void runClaimed(ReplayJob job) {
        claimed.add(job.id());
        LOG.info("replay job {} ({} from {} into {} of {}) claimed by {}", job.id(), job.topic(), job.source(), job.target().sql(),
                job.entity(), owner);
        AtomicBoolean leaseLost = new AtomicBoolean();
        long every = Math.max(100, settings.lease().toMillis() / 3);
        var beat = heartbeats.scheduleWithFixedDelay(() -> {
            try {
                if (!jobs.heartbeat(job.id(), owner, settings.lease())) {
                    leaseLost.set(true);
                }
            } catch (SQLException | RuntimeException e) {
                LOG.warn("replay job {}: heartbeat failed: {}", job.id(), e.getMessage());
            }
        }, every, every, TimeUnit.MILLISECONDS);
        try {
            run(job, leaseLost);
        } catch (ReplayRun.Abandoned a) {
            LOG.info("replay job {}: {}", job.id(), a.getMessage());
            if (stopping.get() && releaseOnStop.get()) {
                release(job);
            }
        } catch (Exception e) {
            if (!stopping.get() && SqlFailures.isTransient(e)) {
                // PostgreSQL restarting, a connection cut, a deadlock victim: nothing of the batch
                // was committed; the job is resumed from its last committed batch
                LOG.warn("replay job {}: {} (transient; it resumes from its last committed batch)", job.id(), e.toString());
                release(job);
                sleep(Duration.ofSeconds(1));
            } else if (stopping.get()) {
                // stopped mid-batch (interrupted, connections closing): not the job's fault
                LOG.info("replay job {}: stopped mid-batch ({}); it resumes from its last committed batch", job.id(), e.toString());
                if (releaseOnStop.get()) {
                    release(job);
                }
            } else {
                LOG.error("replay job {} failed", job.id(), e);
                finished(job, FAILED);
                try {
                    jobs.fail(job.id(), owner, String.valueOf(e.getMessage() == null ? e.toString() : e.getMessage()));
                } catch (SQLException | RuntimeException f) {
                    LOG.warn("replay job {}: cannot mark it failed: {}", job.id(), f.getMessage());
                }
            }
        } finally {
            beat.cancel(false);
        }
    }

    private void release(ReplayJob job) {
        try {
            jobs.release(job.id(), owner);
        } catch (SQLException | RuntimeException e) {
            LOG.warn("replay job {}: cannot release its lease (it resumes when the lease expires): {}", job.id(), e.getMessage());
        }
    }

    private void run(ReplayJob job, AtomicBoolean leaseLost) throws Exception {
        EntityPipeline pipeline = entities.get(job.entity());
        ReplayPosition position = new ReplayPosition(job, owner, settings.lease(), pipeline.entity(), j -> finished(j, CANCELLED));
        ReplayRun run = new ReplayRun(job, pipeline, ds, applier, writer, settings, position, stopping, leaseLost);
        boolean succeeded;
        try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
            succeeded = run.run(consumer);
        }
        if (succeeded) {
            finished(job, SUCCEEDED);
            LOG.info("replay job {} succeeded", job.id());
        }
    }

    /**
     * The {@code consumer_group} under which a job's rejects are kept in {@code dimstream.sink_rejects}
     * (beside the live sink's): undecodable or invalid source records, and values PostgreSQL refused.
     */
    public static String rejectsGroup(ReplayJob job) {
        return ReplayPosition.rejectsGroup(job);
    }

    private KafkaConsumer<byte[], byte[]> consumer() {
        Map<String, Object> p = kafka.properties();
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // a mistyped --topic must fail the job, not create the topic
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, settings.batchSize());
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "dimstream-replay-" + owner);
        return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping.set(true);
        }
    }

    /** Stops between two batches and gives the job's lease up, so the next instance resumes it at once. */
    @Override
    public void close() {
        stopAndJoin(true);
    }

    /**
     * Stops like a crashed instance would look to the others: the lease is not given up, so the
     * job is resumed only after it expires. For fault tests.
     */
    public void halt() {
        stopAndJoin(false);
    }

    private void stopAndJoin(boolean release) {
        releaseOnStop.set(release);
        stopping.set(true);
        if (thread != null) {
            try {
                thread.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        heartbeats.shutdownNow();
    }
}
