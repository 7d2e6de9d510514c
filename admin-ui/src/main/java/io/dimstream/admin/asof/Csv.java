package io.dimstream.admin.asof;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * RFC 4180 lines: a cell holding a comma, a quote, CR or LF is quoted, quotes doubled. NULL is an
 * empty cell and the empty string a quoted empty cell ({@code ""}), so the two stay apart.
 *
 * <p>Spreadsheet formulas: a cell that starts with {@code = + - @}, a tab or a CR and is not a plain
 * number is written with a leading {@code '} (OWASP's advice against CSV injection), so a value
 * such as {@code =HYPERLINK(...)} arriving from a source topic is shown as text, never run, by the
 * spreadsheet that opens the export. Numbers such as {@code -5} or {@code +1.5e3} stay as they are.
 */
final class Csv {

    private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile("[+-]?\\d+(\\.\\d+)?([eE][+-]?\\d+)?");

    private Csv() {
    }

    /** The cell as a spreadsheet must show it: a would-be formula gets a leading {@code '}. */
    static String defused(String c) {
        if (!c.isEmpty() && "=+-@\t\r".indexOf(c.charAt(0)) >= 0 && !NUMBER.matcher(c).matches()) {
            return "'" + c;
        }
        return c;
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
            c = defused(c);
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
