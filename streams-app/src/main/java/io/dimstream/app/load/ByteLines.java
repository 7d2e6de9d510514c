package io.dimstream.app.load;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * The lines of a stream as bytes, not yet text: a line ends at {@code \n}, {@code \r\n} or a lone
 * {@code \r} (as {@link java.io.BufferedReader#readLine()} ends them), the end not included. Text
 * is made of each line by {@link io.dimstream.db.event.StrictUtf8}, so a line that is not UTF-8 is
 * refused on its own instead of read with U+FFFD (what a {@code Reader} over UTF-8 does). Not
 * thread-safe; does not close the stream.
 */
final class ByteLines {

    private final InputStream in;
    private final byte[] buf = new byte[1 << 16];
    private int pos;
    private int limit;
    private byte[] line = new byte[256];
    private int length;
    private boolean skipNewline;

    ByteLines(InputStream in) {
        this.in = in;
    }

    /** The next line's bytes (its length is {@link #length()}; the array is reused), or null at the end. */
    byte[] next() throws IOException {
        length = 0;
        boolean any = false;
        while (true) {
            if (pos == limit) {
                limit = in.read(buf, 0, buf.length);
                pos = 0;
                if (limit <= 0) {
                    limit = 0;
                    return any ? line : null;
                }
            }
            if (skipNewline) {
                skipNewline = false;
                if (buf[pos] == '\n') {
                    pos++;
                    continue;
                }
            }
            int start = pos;
            while (pos < limit && buf[pos] != '\n' && buf[pos] != '\r') {
                pos++;
            }
            append(start, pos - start);
            any = true;
            if (pos < limit) {
                skipNewline = buf[pos] == '\r';
                pos++;
                return line;
            }
        }
    }

    /** The length of the line {@link #next()} returned last. */
    int length() {
        return length;
    }

    private void append(int from, int n) {
        if (length + n > line.length) {
            line = Arrays.copyOf(line, Math.max(line.length * 2, length + n));
        }
        System.arraycopy(buf, from, line, length, n);
        length += n;
    }
}
