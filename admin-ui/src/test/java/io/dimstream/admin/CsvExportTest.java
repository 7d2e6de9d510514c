package io.dimstream.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.Source;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.write.Scd2Writer;
import io.javalin.testtools.JavalinTest;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CSV export under slow readers (review M5, L6; hostile checks 13 and 15): the rows are spooled
 * to a file and the database let go before the first byte is sent, so a reader that stops
 * mid-download holds no connection and no transaction; exports at once and their size are bounded;
 * the raw export keeps values the default export defuses.
 */
class CsvExportTest {

    /** Rows of the bulk entity: with 400-character values, about 17 MB of CSV, far more than socket buffers hold. */
    private static final int ROWS = 40_000;
    private static final String AT = "2025-06-01T00:00:00Z";
    /** Values a spreadsheet would run or change, on the first keys (key order). */
    private static final List<String> HOSTILE = List.of("=HYPERLINK(\"http://x\")", " =1+1", "\u202E=cmd", "+49 30 1234", "-5");

    private static AdminFixture f;
    private static String expectedCsv;
    private static String expectedRawCsv;

    @BeforeAll
    static void bulkEntity() throws Exception {
        f = AdminFixture.get();
        DimstreamConfig config = f.configWith("""
                  - name: bulk
                    topic: t.bulk
                    table: ui_bulk
                    key: [id]
                    tracked: [v]
                    lateness-horizon: unlimited
                    columns: {id: text, v: text}
                """, "");
        EntitySpec bulk = config.entity("bulk").toEntitySpec();
        // each test JVM has a database of its own (TestPostgres): the table is new
        EntityTables.ensure(f.ds, bulk);
        List<Event> events = new ArrayList<>();
        StringBuilder csv = new StringBuilder("id,v,valid_from,valid_to\r\n");
        StringBuilder raw = new StringBuilder("id,v,valid_from,valid_to\r\n");
        for (int i = 0; i < ROWS; i++) {
            String id = String.format("K%06d", i);
            String v = i < HOSTILE.size() ? HOSTILE.get(i) : ("v" + i + "-").repeat(400 / (3 + Integer.toString(i).length()));
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("id", id);
            d.put("v", v);
            events.add(Event.upsert(Instant.parse("2025-01-01T00:00:00Z"), d, i + 1, Source.kafka("t.bulk", 0, i + 1)));
            // defused: the formula (quoted, it holds quotes), the formula after a space and after a bidi
            // override, the phone number; -5 is a number and stays
            csv.append(id).append(',').append(i == 0 ? "\"'" + v.replace("\"", "\"\"") + "\"" : i < 4 ? "'" + v : v)
                    .append(",2025-01-01T00:00:00Z,\r\n");
            raw.append(id).append(',').append(v.contains("\"") ? "\"" + v.replace("\"", "\"\"") + "\"" : v)
                    .append(",2025-01-01T00:00:00Z,\r\n");
        }
        new Scd2Writer(f.ds).apply(bulk, events);
        expectedCsv = csv.toString();
        expectedRawCsv = raw.toString();
    }

    private AdminServer server(String moreAdminLines) {
        return new AdminServer(f.configWith("""
                  - name: bulk
                    topic: t.bulk
                    table: ui_bulk
                    key: [id]
                    tracked: [v]
                    lateness-horizon: unlimited
                    columns: {id: text, v: text}
                """, moreAdminLines), f.ds, AdminSettings.onPort(0));
    }

    /** A download that reads the head and the first bytes, then stops reading until told. */
    private static final class SlowReader implements AutoCloseable {
        final Socket socket = new Socket();
        final InputStream in;
        final String head;
        final byte[] first;

        SlowReader(String origin, String path) throws IOException {
            URI u = URI.create(origin);
            // a small receive window: the server fills it and the socket buffers quickly, then waits for us
            socket.setReceiveBufferSize(4096);
            socket.connect(new InetSocketAddress(u.getHost(), u.getPort()));
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "
                    + AdminFixture.VIEWER_TOKEN + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            in = socket.getInputStream();
            ByteArrayOutputStream h = new ByteArrayOutputStream();
            while (!h.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
                h.write(in.read());
            }
            head = h.toString(StandardCharsets.ISO_8859_1);
            first = in.readNBytes(4096);
        }

        /** The rest of the body, chunked transfer decoded, with the first bytes before it. */
        String rest() throws IOException {
            byte[] all = concat(first, in.readAllBytes());
            return head.toLowerCase().contains("transfer-encoding: chunked") ? dechunk(all) : new String(all, StandardCharsets.UTF_8);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    private static String dechunk(byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int i = 0;
        while (true) {
            int eol = i;
            while (body[eol] != '\r') {
                eol++;
            }
            int size = Integer.parseInt(new String(body, i, eol - i, StandardCharsets.ISO_8859_1).split(";")[0].trim(), 16);
            if (size == 0) {
                return out.toString(StandardCharsets.UTF_8);
            }
            out.write(body, eol + 2, size);
            i = eol + 2 + size + 2;
        }
    }

    /** Sessions of the test database that hold a transaction or a snapshot (which would hold back vacuum). */
    private static List<String> openTransactions() throws Exception {
        try (Connection c = f.ds.getConnection(); PreparedStatement p = c.prepareStatement(
                "SELECT state || ': ' || left(query, 60) FROM pg_stat_activity WHERE datname = current_database() "
                        + "AND pid <> pg_backend_pid() AND (xact_start IS NOT NULL OR backend_xmin IS NOT NULL) ORDER BY pid");
             ResultSet rs = p.executeQuery()) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        }
    }

    @Test
    void aReaderStoppedMidDownloadHoldsNoTransactionAndGetsTheWholeCsvWhenItReadsOn() throws Exception {
        JavalinTest.test(server("").app(), (app, client) -> {
            try (SlowReader reader = new SlowReader(client.getOrigin(), "/api/asof/bulk/csv?at=" + AT)) {
                assertThat(reader.head).startsWith("HTTP/1.1 200 OK\r\n").contains("Content-Type: text/csv; charset=utf-8\r\n")
                        .contains("Content-Disposition: attachment; filename=\"bulk-as-of-2025-06-01T00-00-00Z.csv\"\r\n");
                // 4 KB of about 17 MB read, the server blocked writing the rest: the database is already free
                assertThat(openTransactions()).isEmpty();
                assertThat(reader.rest()).isEqualTo(expectedCsv);
            }
        });
    }

    @Test
    void atMostFourExportsRunAtOnceAndAFifthIsToldToComeBack() throws Exception {
        JavalinTest.test(server("").app(), (app, client) -> {
            List<SlowReader> readers = new ArrayList<>();
            try {
                for (int i = 0; i < 4; i++) {
                    readers.add(new SlowReader(client.getOrigin(), "/api/asof/bulk/csv?at=" + AT));
                }
                Browser b = new Browser(client.getOrigin());
                HttpResponse<String> fifth = b.get("/api/asof/bulk/csv?at=" + AT, "Authorization", "Bearer " + AdminFixture.VIEWER_TOKEN);
                assertThat(List.of(fifth.statusCode(), fifth.headers().firstValue("Retry-After").orElse(""), fifth.body()))
                        .isEqualTo(List.of(503, "30", "{\"error\":\"too many CSV exports at once (at most 4); try again in a minute\"}"));
                assertThat(openTransactions()).isEmpty();
                for (SlowReader r : readers) {
                    assertThat(r.rest()).isEqualTo(expectedCsv);
                }
                readers.forEach(r -> {
                    try {
                        r.close();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                readers.clear();
                // the slots are free again (the release happens when each handler ends, right after its last byte)
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() ->
                        b.get("/api/asof/bulk/csv?at=" + AT, "Authorization", "Bearer " + AdminFixture.VIEWER_TOKEN).statusCode() == 200);
            } finally {
                for (SlowReader r : readers) {
                    r.close();
                }
            }
        });
    }

    @Test
    void anExportOverTheSizeLimitIsRefusedBeforeAnyByteIsSent() {
        JavalinTest.test(server("  csv-max-mib: 1\n").app(), (app, client) -> {
            HttpResponse<String> r = new Browser(client.getOrigin()).get("/api/asof/bulk/csv?at=" + AT,
                    "Authorization", "Bearer " + AdminFixture.VIEWER_TOKEN);
            assertThat(List.of(r.statusCode(), r.body())).isEqualTo(List.of(507, "{\"error\":\"the CSV of bulk is larger than "
                    + "admin.csv-max-mib (1 MiB): export it with psql (docs/querying.md, Big tables) or ask an operator to raise the limit\"}"));
        });
    }

    @Test
    void theRawExportKeepsEveryValueExactlyAndTheDefaultDefusesFormulasAfterSpacesAndBidiMarks() {
        JavalinTest.test(server("").app(), (app, client) -> {
            Browser b = new Browser(client.getOrigin());
            b.login("victor", AdminFixture.VIEWER_PASSWORD);
            HttpResponse<String> raw = b.get("/asof/bulk/csv?at=" + AT + "&raw=1");
            assertThat(raw.headers().firstValue("Content-Disposition"))
                    .hasValue("attachment; filename=\"bulk-as-of-2025-06-01T00-00-00Z-raw.csv\"");
            assertThat(raw.body()).isEqualTo(expectedRawCsv);
            assertThat(b.get("/asof/bulk/csv?at=" + AT).body()).isEqualTo(expectedCsv);
            HttpResponse<String> bad = b.get("/asof/bulk/csv?at=" + AT + "&raw=yes");
            assertThat(bad.statusCode()).isEqualTo(400);
            assertThat(bad.body()).contains("<p class=\"error\" id=\"error-message\">raw: must be 1 (values exactly, formulas not defused) "
                    + "or 0, got \"yes\"</p>");
            assertThat(b.get("/asof/bulk?at=" + AT).body()).contains("<a href=\"/asof/bulk/csv?at=2025-06-01T00:00:00Z&amp;raw=1\" "
                    + "id=\"csv-raw\"");
        });
    }
}
