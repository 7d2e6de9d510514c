package io.dimstream.admin.asof;

import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.Params;
import io.dimstream.admin.web.ValueText;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.ValidToCurrent;
import io.dimstream.db.read.AsOfSteps;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.Page;
import io.dimstream.db.read.VersionRow;
import io.javalin.http.Context;
import io.dimstream.admin.web.Unavailable;
import java.io.BufferedWriter;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /asof/{entity}}: the table as of an instant (DESIGN section 3), paged, filtered by a key
 * prefix, sorted by key ascending or descending; {@code /asof/{entity}/csv} sends the whole
 * snapshot (spooled first, see {@link #csv}). The sort is one of two whitelisted words, the prefix a bound parameter.
 *
 * <p>A stepper walks the table's changes (its distinct {@code valid_from} instants, {@link AsOfSteps}):
 * first / previous / next / last change are plain links setting {@code at} (every state is a URL; the
 * CSP allows no inline script), keeping zone, prefix and sort. The rows whose version begins at the
 * current step ({@code valid_from} = the latest change at or before {@code at}) changed since the
 * previous step and carry the class {@code changed-since-step}.
 */
public final class AsOfPage {

    public static final int PAGE_SIZE = 50;
    static final int MAX_PAGE = HistoryQueries.MAX_LIMIT;

    /** The two sort orders; anything else is refused. */
    public enum Sort {
        KEY_ASC("key_asc"), KEY_DESC("key_desc");

        private final String param;

        Sort(String param) {
            this.param = param;
        }

        public String param() {
            return param;
        }

        static Sort parse(String raw) {
            if (raw == null || raw.isBlank()) {
                return KEY_ASC;
            }
            for (Sort s : values()) {
                if (s.param.equals(raw)) {
                    return s;
                }
            }
            throw new BadRequest("sort: must be key_asc or key_desc, got \"" + raw + "\"");
        }
    }

    /**
     * The stepper: the instants of {@link AsOfSteps} and the page's links to them (null when there
     * is no such change, or it is the state already shown).
     */
    public record Stepper(Instant first, Instant previous, Instant current, Instant next, Instant last,
                          String firstLink, String previousLink, String nextLink, String lastLink) {
    }

    /**
     * The page's model and the JSON twin's body; {@code rows} hold key, attribute and validity
     * values; {@code changedRows} the 0-based indexes of the rows on this page that changed since
     * the previous step.
     */
    public record Model(String entity, Instant at, String zone, String atLocal, String prefix, String sort, int page,
                        boolean hasMore, List<String> columns, List<Map<String, Object>> rows, Stepper stepper,
                        List<Integer> changedRows) {
    }

    /** CSV exports at once, spooling or sending. */
    static final int MAX_EXPORTS = 4;

    private static final Logger LOG = LoggerFactory.getLogger(AsOfPage.class);

    private final HistoryQueries queries;
    private final EntityCatalog catalog;
    private final PageRenderer pages;
    private final Clock clock;
    private final long maxBytes;
    private final Semaphore exports = new Semaphore(MAX_EXPORTS);

    /** @param csvMaxMib the largest CSV export, in MiB ({@code admin.csv-max-mib}) */
    public AsOfPage(HistoryQueries queries, EntityCatalog catalog, PageRenderer pages, Clock clock, int csvMaxMib) {
        this.queries = queries;
        this.catalog = catalog;
        this.pages = pages;
        this.clock = clock;
        this.maxBytes = (long) csvMaxMib << 20;
    }

    Model model(Context ctx) throws SQLException {
        EntitySpec e = catalog.spec(ctx.pathParam("entity"));
        ZoneId zone = Params.zone("tz", ctx.queryParam("tz"));
        Instant at = Params.instant("at", ctx.queryParam("at"), zone, clock.instant());
        String prefix = ctx.queryParam("prefix");
        Sort sort = Sort.parse(ctx.queryParam("sort"));
        int page = Params.page("page", ctx.queryParam("page"), MAX_PAGE);
        Page p = queries.asOf(e, at, prefix, sort == Sort.KEY_DESC, (page - 1) * PAGE_SIZE, PAGE_SIZE);
        List<String> columns = new ArrayList<>(e.dataColumns());
        AsOfSteps steps = queries.steps(e, at);
        List<Map<String, Object>> rows = new ArrayList<>();
        List<Integer> changedRows = new ArrayList<>();
        for (VersionRow r : p.rows()) {
            if (r.validFrom().equals(steps.current())) {
                changedRows.add(rows.size());
            }
            Map<String, Object> m = new LinkedHashMap<>(r.key());
            m.putAll(r.attributes());
            m.put(e.system().validFrom(), r.validFrom());
            m.put(e.system().validTo(), validTo(e, r));
            rows.add(m);
        }
        columns.add(e.system().validFrom());
        columns.add(e.system().validTo());
        String pre = prefix == null ? "" : prefix;
        String base = "/asof/" + enc(e.name()) + "?tz=" + enc(zone.getId()) + "&prefix=" + enc(pre) + "&sort=" + sort.param() + "&at=";
        Instant cur = steps.current();
        Stepper stepper = new Stepper(steps.first(), steps.previous(), cur, steps.next(), steps.last(),
                steps.first() == null || steps.first().equals(cur) ? null : base + enc(steps.first().toString()),
                steps.previous() == null ? null : base + enc(steps.previous().toString()),
                steps.next() == null ? null : base + enc(steps.next().toString()),
                steps.last() == null || steps.last().equals(cur) ? null : base + enc(steps.last().toString()));
        return new Model(e.name(), at, zone.getId(), ValueText.local(at, zone), pre, sort.param(), page,
                p.hasMore(), columns, rows, stepper, changedRows);
    }

    /**
     * The row's {@code valid_to} as the table holds it: an open version's is null, or the text
     * {@code infinity} with {@code valid-to-current: infinity} (the as-of table and its CSV show the
     * table's rows; the history pages say "open" either way).
     */
    private static Object validTo(EntitySpec e, VersionRow r) {
        return r.validTo() != null ? r.validTo() : e.validToCurrent() == ValidToCurrent.INFINITY ? "infinity" : null;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    public void page(Context ctx) throws SQLException {
        pages.render(ctx, "asof.jte", "asof", Map.of("model", model(ctx), "zones", Zones.ALL));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx));
    }

    /**
     * The whole snapshot as CSV (RFC 4180, header line first; {@code raw=1}: values exactly, no
     * formula defusing, see {@link Csv}). The rows are first spooled from a server-side cursor to a
     * temporary file (at most {@code admin.csv-max-mib}), and only then sent: the database
     * connection and its transaction are given back before the first byte goes out, so a slow
     * reader holds a file and a thread, never a pooled connection or an open transaction (which
     * would also hold back vacuum). At most {@value #MAX_EXPORTS} exports run at once (spooling or
     * sending); one more is refused (503, Retry-After), which bounds the disk used to
     * {@value #MAX_EXPORTS} times the limit.
     */
    public void csv(Context ctx) throws SQLException, IOException {
        EntitySpec e = catalog.spec(ctx.pathParam("entity"));
        ZoneId zone = Params.zone("tz", ctx.queryParam("tz"));
        Instant at = Params.instant("at", ctx.queryParam("at"), zone, clock.instant());
        boolean raw = raw(ctx.queryParam("raw"));
        List<String> columns = new ArrayList<>(e.dataColumns());
        columns.add(e.system().validFrom());
        columns.add(e.system().validTo());
        if (!exports.tryAcquire()) {
            ctx.header("Retry-After", "30");
            throw new Unavailable(503, "too many CSV exports at once (at most " + MAX_EXPORTS + "); try again in a minute");
        }
        Path spool = null;
        try {
            spool = Files.createTempFile("dimstream-export-", ".csv");
            long rows = spool(e, at, columns, raw, spool);
            ctx.contentType("text/csv; charset=utf-8");
            ctx.header("Content-Disposition", "attachment; filename=\"" + e.name().replaceAll("[^A-Za-z0-9_.-]", "_")
                    + "-as-of-" + at.toString().replace(':', '-') + (raw ? "-raw" : "") + ".csv\"");
            LOG.debug("sending the CSV of {} as of {}: {} rows, {} bytes", e.name(), at, rows, Files.size(spool));
            try (InputStream in = Files.newInputStream(spool)) {
                in.transferTo(ctx.outputStream());
            }
        } finally {
            exports.release();
            if (spool != null) {
                Files.deleteIfExists(spool);
            }
        }
    }

    /** {@code raw}: absent, 0 or 1. */
    private static boolean raw(String v) {
        if (v == null || v.isBlank() || v.equals("0")) {
            return false;
        }
        if (v.equals("1")) {
            return true;
        }
        throw new BadRequest("raw: must be 1 (values exactly, formulas not defused) or 0, got \"" + v + "\"");
    }

    /** Writes the CSV to {@code file} inside one read transaction; at most {@link #maxBytes}. */
    private long spool(EntitySpec e, Instant at, List<String> columns, boolean raw, Path file) throws SQLException, IOException {
        try (Writer w = new BufferedWriter(new OutputStreamWriter(new Limited(Files.newOutputStream(file), maxBytes),
                StandardCharsets.UTF_8), 64 * 1024)) {
            Csv.line(w, columns, !raw);
            return queries.streamAsOf(e, at, r -> {
                List<String> cells = new ArrayList<>(columns.size());
                r.key().values().forEach(v -> cells.add(ValueText.text(v)));
                r.attributes().values().forEach(v -> cells.add(ValueText.text(v)));
                cells.add(ValueText.text(r.validFrom()));
                cells.add(ValueText.text(validTo(e, r)));
                try {
                    Csv.line(w, cells, !raw);
                } catch (IOException ex) {
                    throw new UncheckedIOException(ex);
                }
            });
        } catch (UncheckedIOException ex) {
            // the limit reached while a row was written (inside the cursor's loop)
            throw ex.getCause() instanceof TooLarge ? tooLarge(e) : ex;
        } catch (TooLarge ex) {
            throw tooLarge(e);
        }
    }

    private Unavailable tooLarge(EntitySpec e) {
        return new Unavailable(507, "the CSV of " + e.name() + " is larger than admin.csv-max-mib (" + (maxBytes >> 20)
                + " MiB): export it with psql (docs/querying.md, Big tables) or ask an operator to raise the limit");
    }

    /** The spool file grew past its limit. */
    private static final class TooLarge extends IOException {
        TooLarge() {
            super("the CSV is larger than its limit");
        }
    }

    /** An output stream that refuses to grow past {@code limit} bytes. */
    private static final class Limited extends FilterOutputStream {
        private final long limit;
        private long written;

        Limited(OutputStream out, long limit) {
            super(out);
            this.limit = limit;
        }

        @Override
        public void write(int b) throws IOException {
            count(1);
            out.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            count(len);
            out.write(b, off, len);
        }

        private void count(int n) throws TooLarge {
            written += n;
            if (written > limit) {
                throw new TooLarge();
            }
        }
    }
}
