package io.dimstream.app.load;

import io.dimstream.db.event.NativeEventJson;
import java.io.IOException;

/**
 * Where a load's events come from, one row (or line) at a time, never all at once: native JSON
 * lines ({@link JsonLinesSource}), or the rows of a CSV file, a Parquet file or a query
 * ({@link TabularSource}). {@link EventFileLoader#load(RowSource, String)} applies any of them in
 * the same loop, through the same writer, with the same report.
 */
public interface RowSource extends AutoCloseable {

    /**
     * The next row as an event, or as a rejection when it cannot be one (it is reported with its
     * position, and the rest goes on); null at the end.
     *
     * @throws TooManyRows when the input has more rows than a load's seq can number
     * @throws IOException when the input cannot be read on (the load stops; committed batches stay)
     */
    NativeEventJson.Parsed next() throws IOException;

    /** Rows (lines, for a text file: blank ones included) read so far: the position of the last row returned. */
    long position();

    /** "line" or "row": what {@link #position()} counts, for reports. */
    String unit();

    @Override
    void close() throws IOException;

    /** More rows than {@link io.dimstream.db.event.ArrivalSeq#MAX_LOAD_LINE}: the input must be split. */
    final class TooManyRows extends IOException {
        public TooManyRows(String message) {
            super(message);
        }
    }
}
