package io.dimstream.app.load;

import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import java.io.BufferedReader;
import java.io.IOException;
import java.time.Instant;

/**
 * Native JSON events, one per line (DESIGN section 3): blank lines are skipped (and counted);
 * a line that is not an event is a rejection. An event's seq is
 * {@link ArrivalSeq#ofLoad}{@code (loadStart, line number)}.
 */
public final class JsonLinesSource implements RowSource {

    private final BufferedReader in;
    private final String fileName;
    private final Instant loadStart;
    private long lineNo;

    public JsonLinesSource(BufferedReader in, String fileName, Instant loadStart) {
        ArrivalSeq.requireLoadStart(loadStart);
        this.in = in;
        this.fileName = fileName;
        this.loadStart = loadStart;
    }

    @Override
    public NativeEventJson.Parsed next() throws IOException {
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            lineNo++;
            if (lineNo > ArrivalSeq.MAX_LOAD_LINE) {
                lineNo--;
                throw new TooManyRows(fileName + " has more than " + ArrivalSeq.MAX_LOAD_LINE + " lines; split it");
            }
            if (!line.isBlank()) {
                return NativeEventJson.parse(line, ArrivalSeq.ofLoad(loadStart, lineNo).value(), Source.line(fileName, lineNo));
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
        in.close();
    }
}
