package io.dimstream.app.load;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.ArrivalSeq;
import io.dimstream.db.event.NativeEventJson;
import io.dimstream.db.event.Source;
import io.dimstream.db.event.TimeTexts;
import java.io.BufferedReader;
import java.io.IOException;
import java.time.Instant;

/**
 * Native JSON events, one per line (DESIGN section 3): blank lines are skipped (and counted);
 * a line that is not an event is a rejection. An event's seq is
 * {@link ArrivalSeq#ofLoad}{@code (loadStart, line number)}. Its event time and the values of its
 * date and time columns are read by {@link TimeTexts} (the spellings files have; a bad one is the
 * line's rejection, naming the column).
 */
public final class JsonLinesSource implements RowSource {

    private final BufferedReader in;
    private final String fileName;
    private final Instant loadStart;
    private final EntitySpec entity;
    private final TimeTexts times;
    private long lineNo;

    public JsonLinesSource(BufferedReader in, String fileName, Instant loadStart, EntitySpec entity, TimeTexts times) {
        ArrivalSeq.requireLoadStart(loadStart);
        this.in = in;
        this.fileName = fileName;
        this.loadStart = loadStart;
        this.entity = entity;
        this.times = times;
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
                NativeEventJson.Parsed p = NativeEventJson.parse(line, ArrivalSeq.ofLoad(loadStart, lineNo).value(),
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
        in.close();
    }
}
