package io.dimstream.app.sink;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.db.sink.PartitionRef;
import io.dimstream.db.sink.SinkOffsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the service has caught up with what was produced: Kafka Streams has committed everything
 * it consumed and the sink has applied everything committed to the changes topics. Measured with
 * the Admin client (end offsets, the Streams group's committed offsets) and the sink's offsets
 * stored in PostgreSQL ({@link SinkOffsets#ofTopics}). For the demo, the benchmarks and tests; the
 * comparisons themselves ({@link #streamsCommitted}, {@link #sinkCaughtUp}) are pure.
 */
public final class CatchUp {

    private static final Logger LOG = LoggerFactory.getLogger(CatchUp.class);

    private final KafkaClients clients;
    private final DataSource dataSource;
    private final List<String> streamsGroups;
    private final List<String> sourceTopics;
    private final Set<String> repartitionTopics;
    private final String sinkGroup;
    private final List<String> changesTopics;

    /**
     * @param streamsGroups     the Kafka Streams application ids (their consumer groups): one per entity's client
     * @param sourceTopics      the source topics Kafka Streams reads
     * @param repartitionTopics the repartition topics it reads too (written transactionally by
     *                          Kafka Streams itself)
     * @param sinkGroup         the group the sink stores its offsets under in PostgreSQL
     * @param changesTopics     the changes topics the sink reads
     */
    public CatchUp(KafkaClients clients, DataSource dataSource, List<String> streamsGroups, List<String> sourceTopics,
                   Set<String> repartitionTopics, String sinkGroup, List<String> changesTopics) {
        this.clients = clients;
        this.dataSource = dataSource;
        this.streamsGroups = List.copyOf(streamsGroups);
        this.sourceTopics = List.copyOf(sourceTopics);
        this.repartitionTopics = Set.copyOf(repartitionTopics);
        this.sinkGroup = sinkGroup;
        this.changesTopics = List.copyOf(changesTopics);
    }

    /**
     * Waits until the topology has taken {@code sourceRecords} records ({@code eventsSeen}: every
     * class counted, DLQ and duplicates included), Kafka Streams has committed its inputs and the
     * sink has applied everything committed to the changes topics (its stored offsets reach their
     * read_committed end offsets). Looks every 250 ms ({@link #caughtUp}).
     *
     * @return false when the timeout passed first
     */
    public boolean await(LongSupplier eventsSeen, long sourceRecords, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> inputTopics = new ArrayList<>(sourceTopics);
        inputTopics.addAll(repartitionTopics);
        // one admin client for the whole wait, not one per look
        try (Admin admin = Admin.create(clients.properties())) {
            AdminLook look = new AdminLook(admin, eventsSeen, inputTopics);
            while (System.nanoTime() < deadline) {
                try {
                    if (caughtUp(look, sourceRecords, repartitionTopics)) {
                        return true;
                    }
                } catch (ExecutionException | SQLException e) {
                    LOG.debug("cannot measure the sink's lag yet: {}", e.getMessage());
                }
                Thread.sleep(250);
            }
            return false;
        }
    }

    /** The reads one look at the service makes ({@link #caughtUp} orders them). */
    interface Look {
        long eventsSeen();

        /** The Kafka Streams groups' committed offset of each input partition one has one for (each reads its own topics). */
        Map<TopicPartition, Long> streamsCommitted() throws ExecutionException, InterruptedException;

        /** The read_committed end offset of each input partition (sources, repartition topics). */
        Map<TopicPartition, Long> inputEnds() throws ExecutionException, InterruptedException;

        /** The read_committed end offset of each changes partition. */
        Map<TopicPartition, Long> changesEnds() throws ExecutionException, InterruptedException;

        /** The sink's stored next offset of each changes partition it has one for. */
        Map<PartitionRef, Long> sinkStored() throws SQLException;
    }

    /**
     * Whether one look finds the service caught up. Its reads are ordered so that nothing committed
     * between two of them makes it pass early: the Streams group's committed offsets BEFORE the
     * inputs' end offsets, so that a transaction of the decode step committing in between shows its
     * repartition records in the ends while their processing is not in the offsets yet. Read the
     * other way round, its source offset counts as committed while the ends still lack its
     * repartition records, and the look passes before the classify step has made their changes
     * (TruncateDuringReplayIT once saw the wait end 2 s before a truncate's deletes were applied,
     * which this explains). Then the changes topics' ends, then the sink's stored offsets.
     */
    static boolean caughtUp(Look look, long sourceRecords, Set<String> transactionalTopics)
            throws ExecutionException, InterruptedException, SQLException {
        if (look.eventsSeen() < sourceRecords) {
            return false;
        }
        Map<TopicPartition, Long> committed = look.streamsCommitted();
        if (!streamsCommitted(look.inputEnds(), committed, transactionalTopics)) {
            return false;
        }
        Map<TopicPartition, Long> changesEnds = look.changesEnds();
        return sinkCaughtUp(changesEnds, look.sinkStored());
    }

    /** The looks of {@link #await}, through the Admin client and the sink's offsets in PostgreSQL. */
    private final class AdminLook implements Look {
        private final Admin admin;
        private final LongSupplier eventsSeen;
        private final List<String> inputTopics;
        /** The topics' partitions, looked up once (not at every look). */
        private Map<TopicPartition, OffsetSpec> inputs;
        private Map<TopicPartition, OffsetSpec> changes;

        AdminLook(Admin admin, LongSupplier eventsSeen, List<String> inputTopics) {
            this.admin = admin;
            this.eventsSeen = eventsSeen;
            this.inputTopics = inputTopics;
        }

        @Override
        public long eventsSeen() {
            return eventsSeen.getAsLong();
        }

        @Override
        public Map<TopicPartition, Long> streamsCommitted() throws ExecutionException, InterruptedException {
            return streamsOffsets(admin);
        }

        @Override
        public Map<TopicPartition, Long> inputEnds() throws ExecutionException, InterruptedException {
            if (inputs == null) {
                inputs = latestOf(admin, inputTopics);
            }
            return committedEnds(admin, inputs);
        }

        @Override
        public Map<TopicPartition, Long> changesEnds() throws ExecutionException, InterruptedException {
            if (changes == null) {
                changes = latestOf(admin, changesTopics);
            }
            return committedEnds(admin, changes);
        }

        @Override
        public Map<PartitionRef, Long> sinkStored() throws SQLException {
            return sinkOffsets();
        }
    }

    /**
     * True when Kafka Streams has committed everything it consumed: its group's committed offsets
     * reach the end of every partition of its input topics (sources, and repartition topics). With
     * exactly-once, those offsets commit in the same transaction as the outputs, so from then on
     * the changes topics' committed ends are final. (Counting records against the changes topics'
     * end offsets instead is not enough: the ends include transaction markers, so they can reach
     * the count while the last records still wait in an open transaction.)
     *
     * @param ends              read_committed end offset of each input partition
     * @param committed         the Streams group's committed offset of each partition it has one for
     * @param transactionalTopics input topics written in transactions (the repartition topics): their
     *                          end may be a marker the committed position has passed or not, so one
     *                          short of the end is enough
     */
    public static boolean streamsCommitted(Map<TopicPartition, Long> ends, Map<TopicPartition, Long> committed,
                                           Set<String> transactionalTopics) {
        for (var e : ends.entrySet()) {
            Long c = committed.get(e.getKey());
            long need = e.getValue() - (transactionalTopics.contains(e.getKey().topic()) ? 1 : 0);
            if (e.getValue() > 0 && (c == null || c < need)) {
                return false;
            }
        }
        return true;
    }

    /**
     * True when the sink's stored offsets reach every changes partition's committed end. The stored
     * offset may sit past a trailing transaction marker, never before the end: one short is enough.
     *
     * @param ends   read_committed end offset of each changes partition
     * @param stored the sink's stored next offset of each partition it has one for (none counts as 0)
     */
    public static boolean sinkCaughtUp(Map<TopicPartition, Long> ends, Map<PartitionRef, Long> stored) {
        for (var e : ends.entrySet()) {
            long next = stored.getOrDefault(new PartitionRef(e.getKey().topic(), e.getKey().partition()), 0L);
            if (next < e.getValue() - 1) {
                return false;
            }
        }
        return true;
    }

    /** Every partition of the topics, each asked for its latest offset. */
    private static Map<TopicPartition, OffsetSpec> latestOf(Admin admin, List<String> topics)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, OffsetSpec> want = new HashMap<>();
        admin.describeTopics(topics).allTopicNames().get().forEach((topic, d) ->
                d.partitions().forEach(pi -> want.put(new TopicPartition(topic, pi.partition()), OffsetSpec.latest())));
        return want;
    }

    private static Map<TopicPartition, Long> committedEnds(Admin admin, Map<TopicPartition, OffsetSpec> partitions)
            throws ExecutionException, InterruptedException {
        Map<TopicPartition, Long> ends = new HashMap<>();
        admin.listOffsets(partitions, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get()
                .forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    private Map<TopicPartition, Long> streamsOffsets(Admin admin) throws ExecutionException, InterruptedException {
        Map<TopicPartition, Long> committed = new HashMap<>();
        for (String group : streamsGroups) {
            admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().forEach((tp, om) -> {
                if (om != null) {
                    committed.put(tp, om.offset());
                }
            });
        }
        return committed;
    }

    private Map<PartitionRef, Long> sinkOffsets() throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            return SinkOffsets.ofTopics(c, sinkGroup, changesTopics);
        }
    }
}
