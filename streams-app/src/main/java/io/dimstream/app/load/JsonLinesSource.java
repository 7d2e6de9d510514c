package io.dimstream.app.load;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Rejection;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.StrictUtf8;
import io.dimstream.db.event.TimeTexts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;

/**
 * Native JSON events, one per line (DESIGN section 3): blank lines are skipped (and counted);
 * a line that is not an event is a rejection. An event's seq is
 * {@link ArrivalSeq#ofLoad}{@code (loadStart, line number)}. Its event time and the values of its
 * date and time columns are read by {@link TimeTexts} (the spellings files have; a bad one is the
 * line's rejection, naming the column).
 *
 * <p>A file's bytes ({@link #JsonLinesSource(InputStream, String, Instant, EntitySpec, TimeTexts)})
 * are read as lines of bytes ({@link ByteLines}) and each is decoded by {@link StrictUtf8}: a line
 * that is not UTF-8 is refused, {@code not valid UTF-8: malformed byte sequence at byte N} (N within
 * the line), and the lines around it are read on. Text already decoded (a {@link BufferedReader})
 * is taken as it is.
 */
public final class JsonLinesSource implements RowSource {

    private final BufferedReader text;
    private final InputStream bytes;
    private final ByteLines lines;
    private final String fileName;
    private final Instant loadStart;
    private final EntitySpec entity;
    private final TimeTexts times;
    private long lineNo;

    /** Lines of text already decoded. */
    public JsonLinesSource(BufferedReader in, String fileName, Instant loadStart, EntitySpec entity, TimeTexts times) {
        this(in, null, fileName, loadStart, entity, times);
    }

    /** Lines of a file's bytes, each decoded strictly. */
    public JsonLinesSource(InputStream in, String fileName, Instant loadStart, EntitySpec entity, TimeTexts times) {
        this(null, in, fileName, loadStart, entity, times);
    }

    private JsonLinesSource(BufferedReader text, InputStream bytes, String fileName, Instant loadStart, EntitySpec entity, TimeTexts times) {
        ArrivalSeq.requireLoadStart(loadStart);
        this.text = text;
        this.bytes = bytes;
        this.lines = bytes == null ? null : new ByteLines(bytes);
        this.fileName = fileName;
        this.loadStart = loadStart;
        this.entity = entity;
        this.times = times;
    }

    /** A line's text, or why it has none. */
    private record Line(String text, String notText) {
    }

    private Line readLine() throws IOException {
        if (text != null) {
            String line = text.readLine();
            return line == null ? null : new Line(line, null);
        }
        byte[] b = lines.next();
        if (b == null) {
            return null;
        }
        try {
            return new Line(StrictUtf8.decode(b, 0, lines.length()), null);
        } catch (IllegalArgumentException e) {
            return new Line(null, e.getMessage());
        }
    }

    @Override
    public NativeEventJson.Parsed next() throws IOException {
        for (Line line = readLine(); line != null; line = readLine()) {
            lineNo++;
            if (lineNo > ArrivalSeq.MAX_LOAD_LINE) {
                lineNo--;
                throw new TooManyRows(fileName + " has more than " + ArrivalSeq.MAX_LOAD_LINE + " lines; split it");
            }
            if (line.notText() != null) {
                return new NativeEventJson.Parsed(null, new Rejection(Source.line(fileName, lineNo), line.notText()));
            }
            if (!line.text().isBlank()) {
                NativeEventJson.Parsed p = NativeEventJson.parse(line.text(), ArrivalSeq.ofLoad(loadStart, lineNo).value(),
                        Source.line(fileName, lineNo), times);
                return p.event() == null ? p : times.readValues(entity, p.event());
            }
        }
        return null;
    }

    @Override
    public long position() {
        return lineNo;
    }

    @Override
    public String unit() {
        return "line";
    }

    @Override
    public void close() throws IOException {
        if (text != null) {
            text.close();
        } else {
            bytes.close();
        }
    }
}
