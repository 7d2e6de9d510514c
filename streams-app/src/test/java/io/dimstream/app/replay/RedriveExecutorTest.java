package io.dimstream.app.replay;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.topology.DlqHeaders;
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.testing.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The re-drive executor's refusals, which need no broker (nothing is produced). */
class RedriveExecutorTest {

    private static final DataSource DS = TestPostgres.dataSource();

    @Test
    void aCutCopyInTheDlqIsNeverReDrivenAndSaysWhereTheWholeRecordIs() throws Exception {
        DlqRecords dlq = new DlqRecords(DS);
        List<DlqRecords.Header> headers = List.of(
                new DlqRecords.Header(DlqHeaders.ERROR, "record too large".getBytes(StandardCharsets.UTF_8)),
                new DlqRecords.Header(DlqHeaders.TRUNCATED, "value".getBytes(StandardCharsets.UTF_8)));
        try (Connection c = DS.getConnection()) {
            DlqRecords.mirror(c, List.of(new DlqRecords.Incoming("redrive_cut", "crm.cut", 2, 41L, "crm.cut.dlq", 0, 7L,
                    "k".getBytes(StandardCharsets.UTF_8), new byte[100], headers, "record too large", Instant.EPOCH)));
        }
        long id = dlq.page("redrive_cut", null, 10).get(0).id();
        assertThat(dlq.requestRedrive(List.of(id), "erin")).containsExactly(id);

        // an unreachable broker: the executor must not even try to produce
        try (RedriveExecutor executor = new RedriveExecutor(DS, Set.of("redrive_cut"), "127.0.0.1:1", Duration.ofSeconds(1))) {
            assertThat(executor.runOnce()).isEqualTo(1);
        }

        DlqRecords.DlqRecord after = dlq.page("redrive_cut", null, 10).get(0);
        assertThat(List.of(after.redriveState(), after.redriveError())).isEqualTo(List.of("failed",
                "the DLQ holds a cut copy of this record (dimstream.truncated): re-drive the original from crm.cut-2@41 with a"
                        + " replay job instead"));
    }
}
