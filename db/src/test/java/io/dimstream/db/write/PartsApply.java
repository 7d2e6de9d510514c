package io.dimstream.db.write;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A batch applied as {@code load} applies it on several connections ({@code ParallelLoad}, in
 * streams-app): split by key into parts, each part in a transaction of its own, all at once; the
 * parts' results summed. One part: the batch in one transaction.
 */
final class PartsApply {

    private PartsApply() {
    }

    static ApplyResult apply(Scd2Writer writer, EntitySpec spec, List<Event> batch, int parts) throws SQLException {
        if (parts == 1) {
            return writer.apply(spec, batch);
        }
        List<List<Event>> split = new ArrayList<>();
        for (int p = 0; p < parts; p++) {
            split.add(new ArrayList<>());
        }
        for (Event e : batch) {
            List<Object> key = new ArrayList<>();
            spec.key().forEach(k -> key.add(String.valueOf(e.data().get(k))));
            split.get(Math.floorMod(key.hashCode(), parts)).add(e);
        }
        List<CompletableFuture<ApplyResult>> running = new ArrayList<>();
        for (List<Event> part : split) {
            running.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return writer.apply(spec, part);
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            }));
        }
        ApplyResult total = ApplyResult.empty();
        for (CompletableFuture<ApplyResult> r : running) {
            total = total.plus(r.join());
        }
        return total;
    }
}
