package io.dimstream.app.load;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.TimeTexts;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.schema.Migrations;
import io.dimstream.db.write.ApplyResult;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a file of native JSON events (one per line, DESIGN section 3) to an entity through the
 * one apply pipeline the Kafka sink uses ({@link ParallelLoad}), one transaction per batch (per part). Blank lines are
 * skipped; lines that are not an event are collected as rejections, never dropped silently.
 *
 * <p>A batch ends at its event count or when its events' estimated heap ({@link EventHeap}) reaches
 * a sixth of the JVM's maximum heap, whichever comes first: a batch is held whole, and the writer
 * needs about as much again while it applies it, so a big batch size is safe for rows of any width
 * (fewer, bigger batches load a big file faster, docs/benchmarks.md).
 */
public final class EventFileLoader {

    private static final Logger LOG = LoggerFactory.getLogger(EventFileLoader.class);

    private final DataSource ds;
    private final EntitySpec entity;
    private final int batchSize;
    private final long batchHeap;
    private final ParallelLoad apply;

    /** A load of an entity made in code, not from a config: every event's fields as read ({@link LoadFields#NONE}). */
    public EventFileLoader(DataSource ds, EntitySpec entity, int batchSize, int parallelism) {
        this(ds, entity, batchSize, parallelism, LoadFields.NONE);
    }

    /**
     * @param parallelism connections each batch is applied on at once, each taking the events of a
     *                    disjoint set of keys in a transaction of its own ({@link ParallelLoad}):
     *                    the apply is CPU-bound in the PostgreSQL backend, so this uses more cores. A batch
     *                    is then atomic per part, not as a whole; loading the same file again converges.
     * @param fields      what the entity's config says about each event's fields ({@link LoadFields#of})
     */
    public EventFileLoader(DataSource ds, EntitySpec entity, int batchSize, int parallelism, LoadFields fields) {
        this(ds, entity, batchSize, parallelism, Runtime.getRuntime().maxMemory() / 6, fields, true);
    }

    /**
     * @param batchHeap          the estimated heap ({@link EventHeap}) at which a batch ends before its event count
     * @param judgesLoadedSlices whether each batch judges the slices loaded after its events for their keys
     *                           ({@link LoadedSlicesAfter}); false for a slice's own rows ({@link SliceLoader})
     */
    EventFileLoader(DataSource ds, EntitySpec entity, int batchSize, int parallelism, long batchHeap, LoadFields fields,
                    boolean judgesLoadedSlices) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, got " + batchSize);
        }
        this.ds = ds;
        this.entity = entity;
        this.batchSize = batchSize;
        this.batchHeap = batchHeap;
        this.apply = new ParallelLoad(ds, entity, parallelism, fields, judgesLoadedSlices);
    }

    /** Brings dimstream's own schema up to date and creates (or validates) the entity's tables. */
    public void prepare() throws SQLException {
        Migrations.migrate(ds);
        EntityTables.ensure(ds, entity);
    }

    /**
     * Reads {@code in} to the end and applies its events.
     *
     * <p>Arrival order: an event's seq is {@link ArrivalSeq#ofLoad}{@code (loadStart, line number)}.
     * Within one file a later line wins a same-time tie on a key; across runs, a load started in
     * a later second wins over an earlier load, so re-loading a corrected file overrides the
     * first one, and re-loading the same file in the same second changes nothing. How this orders
     * against the sink and replays (a load wins a same-time tie with an event from the changes
     * topic for every offset below its seq) is stated in {@link ArrivalSeq}. The scheme holds for
     * files of up to 2^32 - 1 lines and load start times from 2020 to 2088.
     *
     * @param fileName  names the input in each event's lineage ({@code file:NAME}) and in rejections
     * @param loadStart when this load started; its seconds since 2020-01-01 are the high half of every seq
     */
    public LoadReport load(BufferedReader in, String fileName, Instant loadStart) throws LoadException {
        return load(in, fileName, loadStart, new TimeTexts(null));
    }

    /** As {@link #load(BufferedReader, String, Instant)}, texts without a UTC offset read in the zone of {@code times}. */
    public LoadReport load(BufferedReader in, String fileName, Instant loadStart, TimeTexts times) throws LoadException {
        return load(new JsonLinesSource(in, fileName, loadStart, entity, times), fileName);
    }

    /**
     * As {@link #load(BufferedReader, String, Instant, TimeTexts)}, from a file's bytes: each line
     * decoded strictly, one that is not UTF-8 refused on its own ({@link JsonLinesSource}).
     */
    public LoadReport load(InputStream in, String fileName, Instant loadStart, TimeTexts times) throws LoadException {
        return load(new JsonLinesSource(in, fileName, loadStart, entity, times), fileName);
    }

    /**
     * Reads {@code source} to the end and applies its events, as {@link #load(BufferedReader, String, Instant)}
     * does for native JSON lines; the source makes each event's seq and lineage. Does not close it.
     */
    public LoadReport load(RowSource source, String fileName) throws LoadException {
        ApplyResult total = ApplyResult.empty();
        List<Rejection> parseRejections = new ArrayList<>();
        List<Event> batch = new ArrayList<>(Math.min(batchSize, 10_000));
        long heap = 0;
        long lineNo = 0;
        int batches = 0;
        try {
            for (NativeEventJson.Parsed parsed = source.next(); parsed != null; parsed = source.next()) {
                lineNo = source.position();
                if (parsed.rejection() != null) {
                    parseRejections.add(parsed.rejection());
                    continue;
                }
                batch.add(parsed.event());
                heap += EventHeap.estimate(parsed.event());
                if (batch.size() == batchSize || heap >= batchHeap) {
                    total = total.plus(apply(batch, total, parseRejections, lineNo, batches));
                    batches++;
                    batch.clear();
                    heap = 0;
                }
            }
            lineNo = source.position();
        } catch (RowSource.TooManyRows e) {
            throw new LoadException(e.getMessage(), new LoadReport(total, parseRejections, source.position(), batches), null);
        } catch (IOException e) {
            throw new LoadException("cannot read " + fileName + " after " + source.unit() + " " + source.position() + ": " + e.getMessage(),
                    new LoadReport(total, parseRejections, source.position(), batches), e);
        }
        if (!batch.isEmpty()) {
            total = total.plus(apply(batch, total, parseRejections, lineNo, batches));
            batches++;
        }
        LOG.debug("loaded {} {}s of {} into {} in {} batches", lineNo, source.unit(), fileName, entity.name(), batches);
        return new LoadReport(total, parseRejections, lineNo, batches);
    }

    private ApplyResult apply(List<Event> batch, ApplyResult soFar, List<Rejection> parseRejections, long lineNo, int batches)
            throws LoadException {
        try {
            return apply.apply(batch, "the batch of " + batch.size() + " events ending at " + lineNo);
        } catch (SQLException e) {
            throw new LoadException("the database refused the batch ending at line " + lineNo + ": " + e.getMessage()
                    + " (SQL state " + e.getSQLState() + ")", new LoadReport(soFar, parseRejections, lineNo, batches), e);
        }
    }
}
