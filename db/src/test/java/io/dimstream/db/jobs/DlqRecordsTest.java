package io.dimstream.db.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.testing.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The DLQ mirror table: one row per DLQ offset, pages newest first, re-drive requested, claimed and marked, audited. */
class DlqRecordsTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final DlqRecords dlq = new DlqRecords(ds);

    private static byte[] b(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    private static DlqRecords.Incoming rec(String entity, long dlqOffset, String value) {
        return new DlqRecords.Incoming(entity, "crm." + entity, 1, 100 + dlqOffset, "crm." + entity + ".dlq", 0, dlqOffset, b("k" + dlqOffset),
                b(value), List.of(new DlqRecords.Header("trace", b("t-" + dlqOffset)), new DlqRecords.Header("dimstream.error", b("not valid JSON")),
                new DlqRecords.Header("empty", null)), "not valid JSON", Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Test
    void mirroringIsIdempotentAndPagesKeepBytesHeadersAndReasons() throws Exception {
        String entity = "dlq_" + System.nanoTime();
        assertThat(dlq.mirror(List.of(rec(entity, 0, "{bad"), rec(entity, 1, "also bad")))).isEqualTo(2);
        assertThat(dlq.mirror(List.of(rec(entity, 1, "also bad"), rec(entity, 2, null)))).isEqualTo(1);

        List<DlqRecords.DlqRecord> page = dlq.page(entity, null, 10);
        assertThat(page.stream().map(DlqRecords.DlqRecord::dlqOffset).toList()).containsExactly(2L, 1L, 0L);
        DlqRecords.DlqRecord first = page.get(2);
        assertThat(List.of(first.entity(), first.sourceTopic(), first.sourcePartition(), first.sourceOffset(), first.dlqTopic(),
                first.error(), first.redriveState(), first.recordTimestamp()))
                .isEqualTo(List.of(entity, "crm." + entity, 1, 100L, "crm." + entity + ".dlq", "not valid JSON", "none",
                        Instant.parse("2026-01-01T00:00:00Z")));
        assertThat(new String(first.value(), StandardCharsets.UTF_8)).isEqualTo("{bad");
        assertThat(new String(first.key(), StandardCharsets.UTF_8)).isEqualTo("k0");
        assertThat(first.headers().stream().map(h -> h.name() + "=" + (h.value() == null ? "null" : new String(h.value(), StandardCharsets.UTF_8))))
                .containsExactly("trace=t-0", "dimstream.error=not valid JSON", "empty=null");
        assertThat(page.get(0).value()).isNull();
        assertThat(dlq.page(entity, page.get(1).id(), 10).stream().map(DlqRecords.DlqRecord::dlqOffset).toList()).containsExactly(0L);
        assertThat(dlq.countsByEntity()).containsEntry(entity, 3L);
    }

    @Test
    void aRecreatedDlqTopicsRecordsAtOffsetsAlreadyMirroredAreKeptBesideTheOldOnes() throws Exception {
        // a DLQ topic recreated (or a second cluster) starts its offsets over: same topic, partition and
        // offset, another append time; until V007 those records were left out of the mirror silently
        String entity = "dlq_re_" + System.nanoTime();
        DlqRecords.Incoming old = rec(entity, 0, "{old");
        DlqRecords.Incoming recreated = new DlqRecords.Incoming(entity, old.sourceTopic(), 1, 7L, old.dlqTopic(), 0, 0, b("k0"), b("{new"),
                List.of(), "not valid JSON", Instant.parse("2026-02-01T00:00:00Z"));
        assertThat(dlq.mirror(List.of(old))).isEqualTo(1);

        assertThat(dlq.mirror(List.of(recreated, old))).isEqualTo(1);

        assertThat(dlq.page(entity, null, 10).stream().map(r -> new String(r.value(), StandardCharsets.UTF_8) + "@" + r.recordTimestamp())
                .toList()).containsExactly("{new@2026-02-01T00:00:00Z", "{old@2026-01-01T00:00:00Z");
    }

    @Test
    void aPreviewPageCutsKeysValuesHeadersAndReasonsInTheDatabaseAndThePayloadIsWhole() throws Exception {
        String entity = "dlq_pv_" + System.nanoTime();
        byte[] big = new byte[1_000_000];
        java.util.Arrays.fill(big, (byte) 'v');
        List<DlqRecords.Header> headers = new java.util.ArrayList<>();
        for (int i = 0; i < 30; i++) {
            headers.add(new DlqRecords.Header("h" + i, i == 0 ? "x".repeat(5000).getBytes(StandardCharsets.UTF_8) : i == 1 ? null : b("s" + i)));
        }
        dlq.mirror(List.of(new DlqRecords.Incoming(entity, "crm." + entity, 0, 7L, "crm." + entity + ".dlq", 0, 0, b("k".repeat(3000)), big,
                headers, "e".repeat(5000), Instant.parse("2026-01-01T00:00:00Z"))));

        List<DlqRecords.Preview> page = dlq.previewPage(entity, null, 10, 2048, 256);

        assertThat(page).hasSize(1);
        DlqRecords.Preview p = page.get(0);
        assertThat(List.of(p.record().key().length, p.keyLength(), p.record().value().length, p.valueLength(), p.headerCount(),
                p.headers().size(), p.record().error().length(), p.errorLength()))
                .isEqualTo(List.of(2048, 3000, 2048, 1_000_000, 30, 10, 2048, 5000));
        assertThat(p.headers().subList(0, 3).stream().map(h -> h.name() + ":" + (h.value() == null ? "null" : h.value().length) + "/" + h.length())
                .toList()).isEqualTo(List.of("h0:256/5000", "h1:null/0", "h2:2/2"));
        assertThat(new String(p.record().value(), StandardCharsets.UTF_8)).isEqualTo("v".repeat(2048));

        DlqRecords.Payload whole = dlq.payload(p.record().id()).orElseThrow();
        assertThat(List.of(whole.entity(), whole.key().length, java.util.Arrays.equals(whole.value(), big)))
                .isEqualTo(List.of(entity, 3000, true));
        assertThat(dlq.payload(-1)).isEmpty();
    }

    @Test
    void redriveIsRequestedOnceAuditedClaimedAndMarked() throws Exception {
        String entity = "dlq_rd_" + System.nanoTime();
        dlq.mirror(List.of(rec(entity, 0, "x"), rec(entity, 1, "y")));
        List<Long> ids = dlq.page(entity, null, 10).stream().map(DlqRecords.DlqRecord::id).sorted().toList();

        assertThat(dlq.requestRedrive(ids, "ops")).isEqualTo(ids);
        assertThat(dlq.requestRedrive(ids, "ops")).isEmpty();
        assertThat(JobsFixtures.query(ds, "SELECT actor, action, target FROM dimstream.admin_audit WHERE target = ?", "dlq_records:" + ids))
                .isEqualTo(List.of(List.of("ops", "dlq.redrive", "dlq_records:" + ids)));

        try (Connection c = ds.getConnection()) {
            c.setAutoCommit(false);
            List<DlqRecords.DlqRecord> claimed = DlqRecords.claimRequested(c, 100).stream().filter(r -> r.entity().equals(entity)).toList();
            assertThat(claimed.stream().map(DlqRecords.DlqRecord::id).toList()).isEqualTo(ids);
            DlqRecords.markDone(c, ids.get(0));
            DlqRecords.markFailed(c, ids.get(1), "broker said no");
            c.commit();
        }
        List<DlqRecords.DlqRecord> after = dlq.page(entity, null, 10);
        assertThat(after.stream().map(r -> r.redriveState() + "/" + r.redriveRequestedBy() + "/" + r.redriveError()).toList())
                .containsExactly("failed/ops/broker said no", "done/ops/null");
        // a failed one may be asked again
        assertThat(dlq.requestRedrive(ids, "ops2")).containsExactly(ids.get(1));
    }
}
