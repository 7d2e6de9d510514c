package io.dimstream.admin.dashboard;

import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.status.IntegrityRuns;
import io.dimstream.db.sink.SinkBatches;
import io.dimstream.db.status.TableCounts;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** Builds the dashboard from the database (no HTTP here). */
public final class Dashboard {

    /** The window of the "last hour" figures. */
    public static final Duration WINDOW = Duration.ofHours(1);

    /** The whole dashboard. */
    public record View(Instant generatedAt, Instant since, List<EntityStatus> entities) {
        public View {
            entities = List.copyOf(entities);
        }
    }

    private final DataSource ds;
    private final EntityCatalog catalog;
    private final IntegrityRuns integrity;
    private final Clock clock;

    public Dashboard(DataSource ds, EntityCatalog catalog, IntegrityRuns integrity, Clock clock) {
        this.ds = ds;
        this.catalog = catalog;
        this.integrity = integrity;
        this.clock = clock;
    }

    public View build() throws SQLException {
        Instant now = clock.instant();
        Instant since = now.minus(WINDOW);
        List<EntityStatus> out = new ArrayList<>();
        Map<String, Long> dlq = new DlqRecords(ds).countsByEntity();
        // the specs with the catalog's columns merged in: what the entity's table holds now
        for (EntitySpec e : catalog.specs()) {
            TableCounts counts = TableCounts.of(ds, e);
            SinkBatches.Summary s = SinkBatches.summary(ds, e.name(), since);
            double rate = BigDecimal.valueOf(s.newKeys() + s.changed() + s.deleted() + s.late())
                    .divide(BigDecimal.valueOf(WINDOW.toMinutes()), 2, RoundingMode.HALF_UP).doubleValue();
            IntegrityRuns.Run run = integrity.latest(e.name()).orElse(null);
            out.add(new EntityStatus(e.name(), e.table(), e.dataColumns().size(), e.evolved().size(), counts.currentRows(), counts.versions(), counts.deletedKeys(), s.byClass(),
                    rate, s.lag(), s.lastBatchAt().orElse(null), s.lastBatchEvents().orElse(null), s.lastApplyMillis().orElse(null),
                    counts.quarantinePending(), dlq.getOrDefault(e.name(), 0L), counts.sinkRejects(), counts.sinkGaps(),
                    run == null ? "not run" : run.ok() ? "ok" : "failed",
                    run == null ? null : run.counts().values().stream().mapToLong(Long::longValue).sum(),
                    run == null ? null : run.checkedAt()));
        }
        return new View(now, since, out);
    }
}
