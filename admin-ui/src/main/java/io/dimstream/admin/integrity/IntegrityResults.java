package io.dimstream.admin.integrity;

import io.dimstream.db.read.IntegrityReport;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The last integrity report run from the admin, per entity, kept in memory by the server that
 * ran it (a restart forgets it: the dashboard then says "not run").
 */
public final class IntegrityResults {

    /** A report, when and by whom it was run. */
    public record Run(IntegrityReport report, Instant at, String by, long millis) {
    }

    private final Map<String, Run> last = new ConcurrentHashMap<>();

    public void put(String entity, Run run) {
        last.put(entity, run);
    }

    public Optional<Run> last(String entity) {
        return Optional.ofNullable(last.get(entity));
    }
}
