package io.dimstream.db.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.read.Finding;
import io.dimstream.db.read.IntegrityReport;
import io.dimstream.db.testing.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class IntegrityRunsTest {

    static final DataSource DS = TestPostgres.dataSource();

    @Test
    void aStoredReportReadsBackWholeAndOnlyTheNewestTwentyAreKept() throws Exception {
        IntegrityRuns runs = new IntegrityRuns(DS);
        assertThat(runs.latest("ir_x")).isEmpty();
        Map<String, Object> key = new LinkedHashMap<>();
        key.put("region", "eu");
        key.put("no", 7L);
        Finding f = new Finding(Finding.Kind.GAP, key, Instant.parse("2025-01-01T00:00:00Z"), "ends at valid_to X but the next starts at Y");
        IntegrityReport failed = new IntegrityReport("ir_x", 12, List.of(f),
                Map.of(Finding.Kind.GAP, 3L));
        for (int i = 0; i < 24; i++) {
            runs.save(new IntegrityReport("ir_x", 12, List.of()), "bob", 5);
        }
        IntegrityRuns.Run saved = runs.save(failed, "alice", 42);

        IntegrityRuns.Run latest = runs.latest("ir_x").orElseThrow();
        assertThat(latest).isEqualTo(saved);
        assertThat(latest).isEqualTo(new IntegrityRuns.Run(saved.id(), "ir_x", saved.checkedAt(), "alice", 42, 12, false,
                Map.of("GAP", 3L), List.of(new IntegrityRuns.StoredFinding("GAP", Map.of("region", "eu", "no", 7),
                Instant.parse("2025-01-01T00:00:00Z"), "ends at valid_to X but the next starts at Y")), true));
        try (Connection c = DS.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT count(*) FROM dimstream.integrity_runs WHERE entity = 'ir_x'"); ResultSet rs = p.executeQuery()) {
            rs.next();
            assertThat(rs.getLong(1)).isEqualTo(IntegrityRuns.KEEP);
        }
    }
}
