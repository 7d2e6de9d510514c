package io.dimstream.bench;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.write.EntityTableReader;
import io.dimstream.db.write.ExpectedRow;
import io.dimstream.db.write.ReferenceModel;
import io.dimstream.db.sql.Sql;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The soaked table against the reference ({@link SoakBenchmark}): whole rows (key, attributes,
 * validity, flags, record hash), computed by the tests' {@link ReferenceModel} from the feed made
 * again from its seed. Done in shards of keys (key number modulo {@code shards}) so neither side
 * holds the whole table at once: each shard regenerates the feed and keeps its keys' events.
 */
final class SoakCheck {

    /** The outcome: rows compared, and the first differences (empty when the table is exact). */
    record Result(long rows, long expectedRows, List<String> differences) {
        boolean exact() {
            return differences.isEmpty() && rows == expectedRows;
        }
    }

    private SoakCheck() {
    }

    static Result compare(DataSource ds, EntitySpec spec, Supplier<SoakFeed> feeds, int events, int shards) throws SQLException {
        ReferenceModel model = new ReferenceModel(spec);
        List<String> diffs = new ArrayList<>();
        long rows = 0;
        long expectedRows = 0;
        for (int shard = 0; shard < shards; shard++) {
            SoakFeed feed = feeds.get();
            List<Event> mine = new ArrayList<>();
            for (int i = 0; i < events; i++) {
                SoakFeed.Item item = feed.next(false);
                if (Integer.parseInt(item.key().substring(1)) % shards == shard) {
                    mine.add(item.event());
                }
            }
            List<ExpectedRow> expected = model.rows(mine);
            List<ExpectedRow> actual = new ArrayList<>(EntityTableReader.query(ds, spec,
                            Sql.table(spec.table()) + " WHERE substr(customer_id, 2)::int % ? = ?", shards, shard)
                    .stream().map(EntityTableReader.StoredRow::row).toList());
            actual.sort(ReferenceModel.order(spec));
            rows += actual.size();
            expectedRows += expected.size();
            int n = Math.max(actual.size(), expected.size());
            for (int r = 0; r < n && diffs.size() < 10; r++) {
                ExpectedRow a = r < actual.size() ? actual.get(r) : null;
                ExpectedRow e = r < expected.size() ? expected.get(r) : null;
                if (a == null || !a.equals(e)) {
                    diffs.add(String.format(Locale.ROOT, "shard %d row %d: table %s, reference %s", shard, r, a, e));
                }
            }
        }
        return new Result(rows, expectedRows, diffs);
    }
}
