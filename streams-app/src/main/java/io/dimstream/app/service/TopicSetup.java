package io.dimstream.app.service;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.topology.EntityPipeline;
import io.dimstream.app.topology.TopicPlanner;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's side of {@link TopicPlanner}: lists the topics, describes the partition counts the
 * plan needs, creates the missing topics and has the partition counts checked.
 */
final class TopicSetup {

    private static final Logger LOG = LoggerFactory.getLogger(TopicSetup.class);

    private TopicSetup() {
    }

    /**
     * Creates the topics dimstream owns (and, with {@code sources}, on an embedded broker, the source
     * topics); existing ones are kept. The changes topic of a snapshot entity, or of an entity with
     * {@code on-truncate: delete-all} behind the repartition step, gets its source topic's partition
     * count, and a mismatch between existing ones refuses to start ({@link TopicPlanner#missing},
     * {@link TopicPlanner#checkPartitionCounts}).
     */
    static void createTopics(KafkaClients clients, List<EntityPipeline> pipelines, int partitions, short replication, boolean sources)
            throws InterruptedException, ExecutionException {
        try (Admin admin = Admin.create(clients.properties())) {
            Set<String> existing = admin.listTopics().names().get();
            List<NewTopic> missing = TopicPlanner.missing(pipelines, partitions, replication, sources, existing,
                    partitionCounts(admin, TopicPlanner.sourcesToCount(pipelines, existing)));
            if (!missing.isEmpty()) {
                try {
                    admin.createTopics(missing).all().get();
                    LOG.info("created topics {}", missing.stream().map(NewTopic::name).toList());
                } catch (ExecutionException e) {
                    // another instance starting at the same moment created them first: fine
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            Set<String> now = admin.listTopics().names().get();
            TopicPlanner.checkPartitionCounts(pipelines, now, partitionCounts(admin, TopicPlanner.topicsToCompare(pipelines, now)));
        }
    }

    /**
     * The partition counts of {@code topics}. A topic just created (by this start or by another
     * client) can be listed before the broker answering the describe knows it: that answer
     * ({@link UnknownTopicOrPartitionException}) is asked again, for up to 10 s.
     */
    private static Map<String, Integer> partitionCounts(Admin admin, Set<String> topics) throws ExecutionException, InterruptedException {
        Map<String, Integer> counts = new HashMap<>();
        if (topics.isEmpty()) {
            return counts;
        }
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                admin.describeTopics(topics).allTopicNames().get().forEach((topic, d) -> counts.put(topic, d.partitions().size()));
                return counts;
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > until) {
                    throw e;
                }
                Thread.sleep(200);
            }
        }
    }
}
