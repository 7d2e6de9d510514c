package io.dimstream.cli.faults;

import io.dimstream.app.testing.ServiceHarness;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.dimstream.app.demo.CustomerFeed;
import io.dimstream.db.write.ExpectedRow;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two {@code dimstream run} child JVMs with the same application id share the 3-partition source
 * topic and the changes topic; one is killed with SIGKILL while a generated feed flows. The
 * survivor takes the dead one's partitions over once its session times out (nothing here cuts
 * that wait short) and the table ends equal, row by row, to the reference model of every valid
 * event (DESIGN sections 2 and 5, "rebalance between two instances").
 */
class ServiceTwoInstancesIT {

    @Test
    void theSurvivorOfTwoInstancesFinishesTheFeedWithNothingLostOrDoubled(@TempDir Path dir) throws Exception {
        try (ServiceHarness h = ServiceHarness.start(dir, "two_instances_it")) {
            List<CustomerFeed.FeedRecord> feed = ServiceHarness.feed(23, 60, 2400);
            List<ExpectedRow> expected = h.expected(feed);

            // one after the other: two instances starting at the same moment race to create the
            // changes and DLQ topics, and the loser exits ("cannot start: ... TopicExistsException")
            Process a = h.startService("data-a");
            h.awaitRunning(a);
            Process b = h.startService("data-b");
            h.awaitRunning(b);
            h.produce(feed.subList(0, 600));
            // both instances own partitions in both groups: Kafka Streams' and the sink's
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).untilAsserted(() -> {
                assertThat(a.isAlive() && b.isAlive()).as("both services are running").isTrue();
                assertThat(membersWithPartitions(h, h.streamsGroup())).isEqualTo(2);
                assertThat(membersWithPartitions(h, h.applicationId + "-sink")).isEqualTo(2);
            });
            ServiceHarness.log("both instances own partitions");

            h.produce(feed.subList(600, 1200));
            int before = h.rows().size();
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
                assertThat(a.isAlive() && b.isAlive()).as("both services are running").isTrue();
                return h.rows().size() > before;
            });
            h.produce(feed.subList(1200, 1800));
            ServiceHarness.kill(a);
            h.produce(feed.subList(1800, 2400));

            ServiceHarness.log("awaiting the reference model's table");
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(b.isAlive()).as("the surviving service is running").isTrue();
                assertThat(h.rows()).isEqualTo(expected);
            });
            ServiceHarness.log("the table equals the reference model's");
        }
    }

    private static long membersWithPartitions(ServiceHarness h, String group) throws Exception {
        try (Admin admin = h.kafka.admin()) {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all()
                    .get(30, TimeUnit.SECONDS).get(group);
            return d.members().stream().map(MemberDescription::assignment)
                    .filter(as -> !as.topicPartitions().isEmpty()).count();
        }
    }
}
