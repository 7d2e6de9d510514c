package io.dimstream.admin.auth;

/**
 * Text from a request (a user name typed into the login form) made safe to put into a log line:
 * control characters (CR and LF included), Unicode line and paragraph separators and format
 * characters (bidi overrides) become a backslash, u and four hex digits, so a value cannot forge a
 * second log line or reorder one; at most {@value #MAX} characters.
 */
public final class LogText {

    static final int MAX = 80;

    private LogText() {
    }

    public static String of(String s) {
        if (s == null) {
            return "(none)";
        }
        StringBuilder b = new StringBuilder();
        int n = Math.min(s.length(), MAX);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029' || Character.getType(c) == Character.FORMAT) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        if (s.length() > MAX) {
            b.append("...(").append(s.length()).append(" characters)");
        }
        return b.toString();
    }
}
