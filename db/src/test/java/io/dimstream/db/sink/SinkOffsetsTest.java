package io.dimstream.db.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.sql.Transactions;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class SinkOffsetsTest {

    private static final DataSource DS = TestPostgres.dataSource();

    @Test
    void takeDeletesAndReturnsTheOffsetsOfOneTopicOfOneGroupOnly() throws Exception {
        Transactions.inTransaction(DS, c -> {
            for (String group : List.of("take-a", "take-b")) {
                SinkOffsets.advance(c, group, new PartitionRef("take.old", 0), OptionalLong.empty(), 17);
                SinkOffsets.advance(c, group, new PartitionRef("take.old", 2), OptionalLong.empty(), 4);
                SinkOffsets.advance(c, group, new PartitionRef("take.new", 0), OptionalLong.empty(), 9);
            }
            return null;
        });

        Map<Integer, Long> taken = Transactions.inTransaction(DS, c -> SinkOffsets.take(c, "take-a", "take.old"));
        assertThat(taken).isEqualTo(Map.of(0, 17L, 2, 4L));

        try (Connection c = DS.getConnection()) {
            assertThat(SinkOffsets.ofTopics(c, "take-a", List.of("take.old", "take.new")))
                    .isEqualTo(Map.of(new PartitionRef("take.new", 0), 9L));
            assertThat(SinkOffsets.ofTopics(c, "take-b", List.of("take.old", "take.new"))).isEqualTo(Map.of(
                    new PartitionRef("take.old", 0), 17L, new PartitionRef("take.old", 2), 4L, new PartitionRef("take.new", 0), 9L));
        }
        Map<Integer, Long> again = Transactions.inTransaction(DS, c -> SinkOffsets.take(c, "take-a", "take.old"));
        assertThat(again).isEqualTo(Map.of());
    }
}
