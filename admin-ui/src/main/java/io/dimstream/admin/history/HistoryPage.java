package io.dimstream.admin.history;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.dimstream.admin.history.HistoryView.Version;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.NotFound;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.admin.web.ValueText;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.ShadowPreviews;
import io.dimstream.db.read.HistoryQueries;
import io.dimstream.db.read.KeyIncidents;
import io.dimstream.db.read.KnownHistory;
import io.javalin.http.Context;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code /history/{entity}}: a key search (prefix of the first key column, {@code q=}) and, for a
 * whole key ({@code k=} once per key column, in key order), its history: the timeline of the
 * window {@code from=}/{@code to=} (default: the whole history, an open version running to now),
 * the version table, and with {@code a=}/{@code b=} (version numbers) the two versions side by
 * side. Every state of the page is its URL. JSON twin under {@code /api}.
 *
 * <p>With {@code job=N} the page shows the shadow table of replay job N instead of the live table,
 * read-only, for a previewed rebuild: only the shadow of a READY shadow job of this entity
 * ({@code ShadowPreviews.readyShadow}; its name is made from the entity's table and the job's
 * number, never taken from the URL), every link of the page keeping {@code job=N}.
 *
 * <p>For an entity with transaction time, on the live table: {@code known=} (an instant) shows the
 * history as the table stood then, and the corrections list (every superseded image of the key and
 * what replaced it) is shown with the versions it concerns marked ({@link KnownAt}).
 */
public final class HistoryPage {

    /** Keys listed for a search. */
    static final int SEARCH_LIMIT = 50;
    /** Version rows shown before the rest is collapsed. */
    static final int TABLE_ROWS = 50;

    /** The page's model and the JSON twin's body. */
    public record Model(String entity, List<String> keyColumns, String query, List<KeyHit> keys, boolean moreKeys,
                        HistoryView history, Timeline.Window window, Integer a, Integer b, Compare compare,
                        List<KeyIncidents.Quarantined> quarantined, List<KeyIncidents.DeadLettered> deadLettered,
                        String message, @JsonIgnore Screen screen,
                        @JsonInclude(JsonInclude.Include.NON_NULL) Long job,
                        @JsonInclude(JsonInclude.Include.NON_NULL) String shadowTable,
                        @JsonInclude(JsonInclude.Include.NON_NULL) Instant known,
                        @JsonInclude(JsonInclude.Include.NON_NULL) List<KnownAt.CorrectionView> corrections) {
    }

    /** A key found by the search, with its link's query string. */
    public record KeyHit(Map<String, Object> key, String label, String link) {
    }

    /** Two versions side by side: one row per field, {@code changed} when the two differ. */
    public record Compare(int a, int b, List<CompareRow> rows) {
    }

    /** One field of the comparison; {@code group}: period, tracked, type1 or lineage. */
    public record CompareRow(String field, String group, String a, String b, boolean changed) {
    }

    /**
     * What only the HTML page needs: the drawing, the navigation links (query strings), and the
     * version table split into the rows shown and those collapsed; with transaction time, the "as
     * known at" form's hidden fields and the link back to now (both without {@code known}).
     */
    public record Screen(Timeline.Drawing drawing, String zoomIn, String zoomOut, String back, String forward, String whole,
                         boolean wholeShown, List<Version> shown, List<Version> collapsed, int inWindow,
                         List<Map.Entry<String, String>> hidden, Map<String, String> type1Now, Links links, String windowNote,
                         boolean transactionTime, String now, List<Map.Entry<String, String>> knownHidden) {
    }

    private final HistoryQueries queries;
    private final KeyIncidents incidents;
    private final EntityCatalog catalog;
    private final PageRenderer pages;
    private final Clock clock;
    private final ShadowPreviews shadows;
    private final KnownHistory knownHistory;

    /** @param shadows the READY shadow tables {@code job=} may show; null: {@code job=} is refused */
    public HistoryPage(HistoryQueries queries, KnownHistory knownHistory, KeyIncidents incidents, EntityCatalog catalog, PageRenderer pages,
                       Clock clock, ShadowPreviews shadows) {
        this.shadows = shadows;
        this.queries = queries;
        this.knownHistory = Objects.requireNonNull(knownHistory, "knownHistory");
        this.incidents = incidents;
        this.catalog = catalog;
        this.pages = pages;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The entity's live table, or with {@code job=} the READY shadow of that job (anything else a 404). */
    private EntitySpec table(Context ctx, Long job) throws SQLException {
        EntitySpec live = catalog.spec(ctx.pathParam("entity"));
        if (job == null) {
            return live;
        }
        if (shadows == null) {
            throw new NotFound("job: shadow tables are not shown here");
        }
        try {
            return shadows.readyShadow(job, live);
        } catch (ShadowPreviews.NotReady ex) {
            throw new NotFound("job: " + ex.getMessage());
        }
    }

    private static Long job(Context ctx) {
        String raw = ctx.queryParam("job");
        if (raw == null || raw.isEmpty()) {
            return null;
        }
        try {
            return Long.parseLong(raw);
        } catch (NumberFormatException ex) {
            throw new BadRequest("job: \"" + raw + "\" is not a replay job number");
        }
    }

    Model model(Context ctx) throws SQLException {
        Long job = job(ctx);
        EntitySpec e = table(ctx, job);
        String shadowTable = job == null ? null : e.table();
        // the live entity's option: a shadow's spec is the live one on another table
        Instant known = KnownAt.param(e, job, ctx.queryParam("known"));
        boolean transactionTime = e.transactionTime() && job == null;
        List<String> k = ctx.queryParams("k");
        String q = ctx.queryParam("q") == null ? "" : ctx.queryParam("q");
        if (k.isEmpty()) {
            return search(e, q, job, shadowTable);
        }
        if (k.size() != e.key().size()) {
            throw new BadRequest("k: entity " + e.name() + " has " + e.key().size() + " key column(s) " + e.key()
                    + "; give k= once for each, in that order (got " + k.size() + ")");
        }
        Instant from = instant("from", ctx.queryParam("from"));
        Instant to = instant("to", ctx.queryParam("to"));
        KnownAt.Read read;
        try {
            read = transactionTime ? KnownAt.read(knownHistory, e, new ArrayList<>(k), known)
                    : new KnownAt.Read(queries.history(e, new ArrayList<>(k)), null, null);
        } catch (IllegalArgumentException ex) {
            throw new BadRequest("k: " + ex.getMessage());
        }
        if (read.rows().isEmpty()) {
            return new Model(e.name(), e.key(), q, List.of(), false, null, null, null, null, null, List.of(), List.of(),
                    "No version of key " + String.join(", ", k) + (known == null ? "" : " as known at " + known) + ".", null, job, shadowTable,
                    known, read.corrections());
        }
        HistoryView history = HistoryView.of(e, read.rows(), read.known());
        List<Version> versions = history.versions();
        Instant now = clock.instant();
        Timeline.Window whole = Timeline.defaultWindow(versions, now);
        Timeline.Window w;
        try {
            w = new Timeline.Window(from == null ? whole.from() : from, to == null ? whole.to() : to);
        } catch (IllegalArgumentException ex) {
            throw new BadRequest((from != null && to != null ? "from, to" : from != null ? "from" : "to") + ": " + ex.getMessage());
        }
        Integer a = version("a", ctx.queryParam("a"), versions.size());
        Integer b = version("b", ctx.queryParam("b"), versions.size());
        Compare compare = a != null && b != null ? compare(history, versions.get(a - 1), versions.get(b - 1)) : null;

        Map<String, String> keyTexts = new LinkedHashMap<>();
        for (int i = 0; i < k.size(); i++) {
            keyTexts.put(e.key().get(i), k.get(i));
        }
        List<KeyIncidents.Quarantined> quarantined = incidents.quarantined(e.name(), keyTexts);
        List<KeyIncidents.DeadLettered> dead = incidents.deadLettered(e.name(), keyTexts);
        boolean wholeShown = from == null && to == null;
        Screen screen = screen(history, w, wholeShown, new Links(k, a, b, job, known), now, transactionTime);
        return new Model(e.name(), e.key(), q, List.of(), false, history, w, a, b, compare, quarantined, dead, null, screen,
                job, shadowTable, known, read.corrections());
    }

    private Model search(EntitySpec e, String q, Long job, String shadowTable) throws SQLException {
        List<Map<String, Object>> found = queries.findKeys(e, q, SEARCH_LIMIT + 1);
        boolean more = found.size() > SEARCH_LIMIT;
        List<KeyHit> hits = found.stream().limit(SEARCH_LIMIT).map(key -> hit(key, job)).toList();
        String message = hits.isEmpty() ? (q.isEmpty() ? "The table is empty." : "No key starts with \"" + q + "\".") : null;
        return new Model(e.name(), e.key(), q, hits, more, null, null, null, null, null, List.of(), List.of(),
                message, null, job, shadowTable, null, null);
    }

    /** The drawing, the window links and the version table of one key's page ({@link Screen}). */
    private static Screen screen(HistoryView history, Timeline.Window w, boolean wholeShown, Links links, Instant now,
                                 boolean transactionTime) {
        List<Version> versions = history.versions();
        List<Version> inside = new ArrayList<>();
        List<Version> outside = new ArrayList<>();
        for (Version v : versions) {
            (Timeline.end(v, now).isAfter(w.from()) && v.validFrom().isBefore(w.to()) ? inside : outside).add(v);
        }
        Timeline.Window in = w.zoomIn(Timeline.medianStart(inside, w));
        List<Version> ordered = new ArrayList<>(inside);
        ordered.addAll(outside);
        Map<String, String> type1Now = new LinkedHashMap<>();
        Version last = versions.get(versions.size() - 1);
        for (String c : history.type1Columns()) {
            type1Now.put(c, last.text(c));
        }
        return new Screen(Timeline.draw(versions, history.trackedColumns(), w, now),
                in == null ? null : links.to(in), links.to(w.zoomOut()), links.to(w.pan(-1)), links.to(w.pan(1)), links.to(null),
                wholeShown, ordered.subList(0, Math.min(TABLE_ROWS, ordered.size())),
                ordered.subList(Math.min(TABLE_ROWS, ordered.size()), ordered.size()), inside.size(),
                links.hidden(wholeShown ? null : w), type1Now, links, wholeShown ? windowNote(versions, now) : null,
                transactionTime, links.withoutKnown().to(wholeShown ? null : w), links.knownFormHidden(wholeShown ? null : w));
    }

    /** What the default window shows and why, in words ({@link Timeline#defaultWindow}). */
    static String windowNote(List<Version> versions, Instant now) {
        Version first = versions.get(0);
        Version last = versions.get(versions.size() - 1);
        String from = "Showing the key's versions: from the first, at " + first.validFrom();
        if (last.validTo() != null) {
            return from + ", to the end of the last, at " + last.validTo() + ".";
        }
        if (Timeline.nowIsNearTheData(versions, now)) {
            return from + ", to now; the current version began at " + last.validFrom() + ".";
        }
        return from + ", to a little after the latest change, at " + last.validFrom() + ": the current version runs on to now ("
                + now.truncatedTo(ChronoUnit.SECONDS) + "), " + (now.isAfter(last.validFrom()) ? "long after" : "before")
                + " the changes, so the window ends " + (versions.size() == 1 ? "a day" : "a tenth of the key's history") + " after it. Zoom out or pan to see more.";
    }

    /** Query strings of this key's page, keeping the selected versions, the shadow job and the "as known at" instant. */
    public record Links(List<String> k, Integer a, Integer b, Long job, Instant known) {

        /** The same links without {@code known}: the history as the table says now. */
        Links withoutKnown() {
            return new Links(k, a, b, job, null);
        }

        public String to(Timeline.Window w) {
            StringBuilder s = new StringBuilder();
            for (String p : k) {
                s.append(s.length() == 0 ? "?" : "&").append("k=").append(enc(p));
            }
            if (w != null) {
                s.append("&from=").append(enc(w.from().toString())).append("&to=").append(enc(w.to().toString()));
            }
            if (a != null) {
                s.append("&a=").append(a);
            }
            if (b != null) {
                s.append("&b=").append(b);
            }
            if (job != null) {
                s.append("&job=").append(job);
            }
            if (known != null) {
                s.append("&known=").append(enc(known.toString()));
            }
            return s.toString();
        }

        /** The hidden fields of the compare form: the key, the window, the job and the instant (A and B are its radio buttons). */
        List<Map.Entry<String, String>> hidden(Timeline.Window w) {
            List<Map.Entry<String, String>> out = keyAndWindow(w);
            if (job != null) {
                out.add(Map.entry("job", job.toString()));
            }
            if (known != null) {
                out.add(Map.entry("known", known.toString()));
            }
            return out;
        }

        /** The hidden fields of the "as known at" form: the key, the window and the compared versions (the instant is its field). */
        List<Map.Entry<String, String>> knownFormHidden(Timeline.Window w) {
            List<Map.Entry<String, String>> out = keyAndWindow(w);
            if (a != null) {
                out.add(Map.entry("a", a.toString()));
            }
            if (b != null) {
                out.add(Map.entry("b", b.toString()));
            }
            return out;
        }

        private List<Map.Entry<String, String>> keyAndWindow(Timeline.Window w) {
            List<Map.Entry<String, String>> out = new ArrayList<>();
            k.forEach(v -> out.add(Map.entry("k", v)));
            if (w != null) {
                out.add(Map.entry("from", w.from().toString()));
                out.add(Map.entry("to", w.to().toString()));
            }
            return out;
        }
    }

    /** An instant of the URL: ISO-8601 with a zone ({@code 2025-01-01T00:00:00Z}), or a UTC date-time or date. */
    static Instant instant(String param, String value) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException ignored) {
            // try the shorter forms
        }
        try {
            return LocalDateTime.parse(value).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException ignored) {
            // a date?
        }
        try {
            return LocalDate.parse(value).atStartOfDay().toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException ex) {
            throw new BadRequest(param + ": not an instant (e.g. 2025-01-01T00:00:00Z, 2025-01-01T00:00 UTC, or 2025-01-01): \""
                    + value + "\"");
        }
    }

    static Integer version(String param, String value, int count) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        int n;
        try {
            n = Integer.parseInt(value);
        } catch (NumberFormatException ex) {
            throw new BadRequest(param + ": not a version number: \"" + value + "\"");
        }
        if (n < 1 || n > count) {
            throw new BadRequest(param + ": no version " + n + " (the key has versions 1 to " + count + ")");
        }
        return n;
    }

    static Compare compare(HistoryView h, Version a, Version b) {
        List<CompareRow> rows = new ArrayList<>();
        row(rows, "valid_from", "period", a.validFrom().toString(), b.validFrom().toString());
        row(rows, "valid_to", "period", a.validTo() == null ? "open" : a.validTo().toString(), b.validTo() == null ? "open" : b.validTo().toString());
        row(rows, "state", "period", a.state() + (a.late() ? ", late-placed" : ""), b.state() + (b.late() ? ", late-placed" : ""));
        for (String c : h.trackedColumns()) {
            row(rows, c, "tracked", a.text(c), b.text(c));
        }
        for (String c : h.type1Columns()) {
            row(rows, c, "type1", a.text(c), b.text(c));
        }
        row(rows, "surrogate_key", "lineage", Long.toString(a.surrogateKey()), Long.toString(b.surrogateKey()));
        row(rows, "record_hash", "lineage", a.recordHash(), b.recordHash());
        row(rows, "topic", "lineage", a.lineage().topic(), b.lineage().topic());
        row(rows, "partition", "lineage", str(a.lineage().partition()), str(b.lineage().partition()));
        row(rows, "offset", "lineage", str(a.lineage().offset()), str(b.lineage().offset()));
        row(rows, "loaded_at", "lineage", str(a.lineage().loadedAt()), str(b.lineage().loadedAt()));
        return new Compare(a.number(), b.number(), rows);
    }

    private static void row(List<CompareRow> rows, String field, String group, String a, String b) {
        rows.add(new CompareRow(field, group, a, b, !Objects.equals(a, b)));
    }

    private static String str(Object o) {
        return o == null ? null : o.toString();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static KeyHit hit(Map<String, Object> key, Long job) {
        List<String> parts = key.values().stream().map(ValueText::text).toList();
        StringBuilder link = new StringBuilder();
        for (String p : parts) {
            link.append(link.length() == 0 ? "?" : "&").append("k=").append(enc(p));
        }
        if (job != null) {
            link.append("&job=").append(job);
        }
        return new KeyHit(new LinkedHashMap<>(key), String.join(" / ", parts), link.toString());
    }

    public void page(Context ctx) throws SQLException {
        Model m = model(ctx);
        pages.render(ctx, "history.jte", "history", Map.of("model", m));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx));
    }
}
