package io.dimstream.admin.dlq;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.admin.auth.Security;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.BytesText;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.Json;
import io.dimstream.admin.web.NotFound;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.db.jobs.DlqRecords;
import io.dimstream.db.sink.SinkGaps;
import io.dimstream.db.sink.SinkRejects;
import javax.sql.DataSource;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code /dlq?entity=&before=}: the mirror of the dead-letter topics ({@code dimstream.dlq_records}),
 * newest first, with the reason, the source coordinates and the record's key, value and headers
 * shown safely ({@link Bytes}: UTF-8 text when valid, else hex; escaped by the template) and cut
 * to a preview ({@value #PREVIEW_BYTES} bytes, cut in the database), the whole key or value a
 * download ({@code /dlq/{id}/key|value});
 * {@code POST /dlq/redrive} (admin role, ids in {@code id} fields) asks the running service to
 * produce records back to their source topic, audited with the user. Below them, the records the
 * sink and replay jobs set aside ({@code dimstream.sink_rejects}: undecodable, invalid, or a value
 * PostgreSQL refused, with its SQL state) and the changes-topic ranges the sink skipped
 * ({@code dimstream.sink_gaps}).
 */
public final class DlqPage {

    public static final int PAGE_SIZE = 50;
    /**
     * Bytes of a key or value a page shows (twice as many characters when shown as hex): a page of
     * 50 records near Kafka's 1 MB limit stays a few hundred KB instead of 100 MB.
     */
    public static final int PREVIEW_BYTES = 2048;
    /** Bytes of each header value a page shows. */
    public static final int HEADER_PREVIEW_BYTES = 256;

    /** A header as shown. */
    public record HeaderView(String name, BytesText value) {
    }

    /**
     * One record as shown: key, value and header values are previews ({@link Bytes#truncated()};
     * the whole key or value is a download, {@code /dlq/{id}/key|value}).
     *
     * @param headersTruncated the record has more headers than shown ({@value DlqRecords#PREVIEW_HEADERS})
     * @param errorTruncated   the reason is longer than shown ({@value DlqRecords#PREVIEW_TEXT} characters)
     */
    public record RecordView(long id, String entity, String sourceTopic, Integer sourcePartition, Long sourceOffset, String dlqTopic,
                             int dlqPartition, long dlqOffset, BytesText key, BytesText value, List<HeaderView> headers, String error,
                             Instant recordTimestamp, Instant receivedAt, String redriveState, String redriveRequestedBy,
                             Instant redriveRequestedAt, Instant redrivenAt, String redriveError, boolean headersTruncated,
                             boolean errorTruncated) {

        static RecordView of(DlqRecords.Preview p) {
            DlqRecords.DlqRecord r = p.record();
            return new RecordView(r.id(), r.entity(), r.sourceTopic(), r.sourcePartition(), r.sourceOffset(), r.dlqTopic(),
                    r.dlqPartition(), r.dlqOffset(), BytesText.preview(r.key(), p.keyLength()), BytesText.preview(r.value(), p.valueLength()),
                    p.headers().stream().map(h -> new HeaderView(h.name(), BytesText.preview(h.value(), h.length()))).toList(), r.error(),
                    r.recordTimestamp(), r.receivedAt(), r.redriveState(), r.redriveRequestedBy(), r.redriveRequestedAt(),
                    r.redrivenAt(), r.redriveError(), p.headerCount() > p.headers().size(),
                    r.error() != null && p.errorLength() > r.error().length());
        }

        /**
         * Whether the headers are more text than a cell shows at once ({@link BytesText#INLINE_CHARS}
         * characters, names and values): the page folds them behind their count.
         */
        public boolean headersFolded() {
            int chars = 0;
            for (HeaderView h : headers) {
                chars += h.name().length() + 1 + h.value().shown().length();
            }
            return chars > BytesText.INLINE_CHARS / 2;
        }

        /** Whether a re-drive may be asked for (not yet requested or done, and the source topic is known). */
        public boolean redrivable() {
            return sourceTopic != null && (redriveState.equals("none") || redriveState.equals("failed"));
        }
    }

    /**
     * A record the sink or a replay job set aside ({@code dimstream.sink_rejects}), its value a preview.
     *
     * @param consumerGroup the live sink's group, or {@code replay-<job id>}
     * @param sqlState      when PostgreSQL refused a value; null when the record was refused before
     */
    public record RejectView(long id, String consumerGroup, String entity, String topic, int partition, long offset, String reason,
                             String sqlState, Instant rejectedAt, BytesText value) {

        static RejectView of(SinkRejects.Row r) {
            return new RejectView(r.id(), r.consumerGroup(), r.entity(), r.topic(), r.partition(), r.offset(), r.reason(), r.sqlState(),
                    r.rejectedAt(), BytesText.preview(r.valuePreview(), r.valueLength()));
        }
    }

    /** Rejects and gaps listed under the DLQ's records, newest first. */
    public static final int SIDE_LIMIT = 50;

    /**
     * The page; {@code nextBefore} is the {@code before} of the next page, null on the last.
     *
     * @param rejects the newest {@value #SIDE_LIMIT} sink rejects of the entity (or all)
     * @param gaps    the newest {@value #SIDE_LIMIT} ranges the sink skipped ({@code dimstream.sink_gaps})
     */
    public record Model(String entity, Long before, Long nextBefore, List<RecordView> records, List<RejectView> rejects,
                        List<SinkGaps.Gap> gaps) {
    }

    /** What a re-drive request did: the ids now requested, and those skipped (already requested or done, or unknown). */
    public record Redrive(List<Long> requested, List<Long> skipped) {
    }

    private final DlqRecords dlq;
    private final DataSource ds;
    private final EntityCatalog catalog;
    private final PageRenderer pages;

    public DlqPage(DlqRecords dlq, DataSource ds, EntityCatalog catalog, PageRenderer pages) {
        this.dlq = dlq;
        this.ds = ds;
        this.catalog = catalog;
        this.pages = pages;
    }

    Model model(String rawEntity, String rawBefore) throws SQLException {
        String entity = rawEntity == null || rawEntity.isBlank() ? null : catalog.configSpec(rawEntity).name();
        Long before = null;
        if (rawBefore != null && !rawBefore.isBlank()) {
            try {
                before = Long.parseLong(rawBefore.trim());
            } catch (NumberFormatException e) {
                throw new BadRequest("before: \"" + rawBefore + "\" is not a record id");
            }
        }
        List<DlqRecords.Preview> rows = dlq.previewPage(entity, before, PAGE_SIZE + 1, PREVIEW_BYTES, HEADER_PREVIEW_BYTES);
        boolean more = rows.size() > PAGE_SIZE;
        List<RecordView> shown = rows.stream().limit(PAGE_SIZE).map(RecordView::of).toList();
        Long next = more ? shown.get(shown.size() - 1).id() : null;
        List<RejectView> rejects = SinkRejects.recent(ds, entity, SIDE_LIMIT, PREVIEW_BYTES).stream().map(RejectView::of).toList();
        return new Model(entity == null ? "" : entity, before, next, shown, rejects, SinkGaps.recent(ds, entity, SIDE_LIMIT));
    }

    public void page(Context ctx) throws SQLException {
        render(ctx, model(ctx.queryParam("entity"), ctx.queryParam("before")), null);
    }

    private void render(Context ctx, Model m, Redrive r) {
        Map<String, Object> params = new HashMap<>();
        params.put("model", m);
        params.put("redrive", r);
        pages.render(ctx, "dlq.jte", "dlq", params);
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx.queryParam("entity"), ctx.queryParam("before")));
    }

    /**
     * {@code GET /dlq/{id}/key} or {@code /dlq/{id}/value} (and the {@code /api} twins): the whole
     * key or value as it was on the dead-letter topic, as a download ({@code application/octet-stream},
     * never rendered by the browser).
     */
    public void download(Context ctx) throws SQLException {
        String rawId = ctx.pathParam("id");
        long id;
        try {
            id = Long.parseLong(rawId);
        } catch (NumberFormatException e) {
            throw new BadRequest("id: \"" + rawId + "\" is not a DLQ record id");
        }
        String part = ctx.pathParam("part");
        if (!part.equals("key") && !part.equals("value")) {
            throw new NotFound("a DLQ record has a key and a value, not \"" + part + "\"");
        }
        DlqRecords.Payload p = dlq.payload(id).orElseThrow(() -> new NotFound("no DLQ record " + id));
        byte[] bytes = part.equals("key") ? p.key() : p.value();
        if (bytes == null) {
            throw new NotFound("DLQ record " + id + " has a null " + part);
        }
        ctx.contentType("application/octet-stream");
        ctx.header("Content-Disposition", "attachment; filename=\"dlq-" + id + "-" + part + ".bin\"");
        ctx.result(bytes);
    }

    private Redrive redrive(List<String> rawIds, Context ctx) throws SQLException {
        if (rawIds.isEmpty()) {
            throw new BadRequest("id: name at least one DLQ record to re-drive");
        }
        List<Long> ids = new ArrayList<>();
        for (String s : rawIds) {
            try {
                ids.add(Long.parseLong(s.trim()));
            } catch (NumberFormatException e) {
                throw new BadRequest("id: \"" + s + "\" is not a DLQ record id");
            }
        }
        List<Long> done = dlq.requestRedrive(ids, Security.principal(ctx).name());
        List<Long> skipped = ids.stream().filter(i -> !done.contains(i)).distinct().sorted().toList();
        return new Redrive(done, skipped);
    }

    public void redrivePage(Context ctx) throws SQLException {
        Redrive r = redrive(ctx.formParams("id"), ctx);
        render(ctx, model(ctx.formParam("entity"), null), r);
    }

    /** {@code POST /api/dlq/redrive}: {@code {"ids": [1, 2]}} (or form fields {@code id}). */
    public void redriveApi(Context ctx) throws SQLException {
        List<String> ids = new ArrayList<>();
        String type = ctx.contentType();
        if (type != null && type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            JsonNode body;
            try {
                body = Json.mapper().readTree(ctx.body());
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new BadRequest("body: not JSON (" + e.getOriginalMessage() + ")");
            }
            JsonNode arr = body == null ? null : body.get("ids");
            if (arr == null || !arr.isArray()) {
                throw new BadRequest("ids: expected {\"ids\": [record ids]}");
            }
            arr.forEach(n -> ids.add(n.asText()));
        } else {
            ids.addAll(ctx.formParams("id"));
        }
        ctx.json(redrive(ids, ctx));
    }
}
