package io.dimstream.admin.asof;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * RFC 4180 lines: a cell holding a comma, a quote, CR or LF is quoted, quotes doubled. NULL is an
 * empty cell and the empty string a quoted empty cell ({@code ""}), so the two stay apart.
 *
 * <p>Spreadsheet formulas (the default export): a cell that starts with {@code = + - @}, a tab or
 * a CR, also after leading spaces or invisible format characters (a bidi override such as
 * U+202E), and is not a plain number, is written with a leading {@code '} (OWASP's advice against
 * CSV injection), so a value such as {@code =HYPERLINK(...)} arriving from a source topic is shown
 * as text, never run, by the spreadsheet that opens the export. Numbers such as {@code -5} or
 * {@code +1.5e3} stay as they are. The price: a value such as {@code +49 30 1234} gains a
 * {@code '}; the raw export ({@code ?raw=1}, {@code defuse = false}) writes every value exactly,
 * for programs rather than spreadsheets.
 */
final class Csv {

    private static final java.util.regex.Pattern NUMBER = java.util.regex.Pattern.compile("[+-]?\\d+(\\.\\d+)?([eE][+-]?\\d+)?");

    private Csv() {
    }

    /** The cell as a spreadsheet must show it: a would-be formula gets a leading {@code '}. */
    static String defused(String c) {
        if (c.isEmpty()) {
            return c;
        }
        if (c.charAt(0) == '\t' || c.charAt(0) == '\r') {
            return "'" + c;
        }
        int i = 0;
        while (i < c.length() && (c.charAt(i) == ' ' || c.charAt(i) == '\u00a0' || Character.getType(c.charAt(i)) == Character.FORMAT)) {
            i++;
        }
        if (i < c.length() && "=+-@".indexOf(c.charAt(i)) >= 0 && !NUMBER.matcher(c.substring(i)).matches()) {
            return "'" + c;
        }
        return c;
    }

    /** A defused line (the default export). */
    static void line(Writer w, List<String> cells) throws IOException {
        line(w, cells, true);
    }

    /** A line; {@code defuse = false} writes every value exactly (the raw export). */
    static void line(Writer w, List<String> cells, boolean defuse) throws IOException {
        for (int i = 0; i < cells.size(); i++) {
            if (i > 0) {
                w.write(',');
            }
            String c = cells.get(i);
            if (c == null) {
                continue;
            }
            if (defuse) {
                c = defused(c);
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
