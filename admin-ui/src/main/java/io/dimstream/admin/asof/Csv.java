package io.dimstream.admin.asof;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * RFC 4180 lines: a cell holding a comma, a quote, CR or LF is quoted, quotes doubled. NULL is an
 * empty cell and the empty string a quoted empty cell ({@code ""}), so the two stay apart.
 */
final class Csv {

    private Csv() {
    }

    static void line(Writer w, List<String> cells) throws IOException {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                w.write(',');
            }
            String c = cells.get(i);
            if (c == null) {
                continue;
            }
            if (c.isEmpty() || c.indexOf(',') >= 0 || c.indexOf('"') >= 0 || c.indexOf('\n') >= 0 || c.indexOf('\r') >= 0) {
                w.write('"');
                w.write(c.replace("\"", "\"\""));
                w.write('"');
            } else {
                w.write(c);
            }
        }
        w.write("\r\n");
    }
}
