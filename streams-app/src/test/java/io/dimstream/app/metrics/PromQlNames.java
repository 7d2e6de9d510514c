package io.dimstream.app.metrics;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The metric names a PromQL expression reads (Grafana variables allowed), for the check that the
 * shipped dashboard and alert rules name only metrics dimstream exports.
 *
 * <p>Hand-written on purpose: there is no maintained PromQL parser for Java (the reference parser
 * is Prometheus' own Go code), and the check needs only the names, which a tokenizer finds
 * reliably: string literals, label matchers ({@code {...}}), ranges and subqueries
 * ({@code [...]}), Grafana variables ({@code $x}, {@code ${x}}) and numbers and durations are
 * removed; the label lists after {@code by}, {@code without}, {@code on}, {@code ignoring},
 * {@code group_left} and {@code group_right} are removed; an identifier followed by {@code (} is
 * a function or aggregation; the operators' keywords are not names. What is left is the names.
 */
final class PromQlNames {

    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "offset", "bool", "atan2", "inf", "nan");
    private static final Pattern STRINGS = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|'(?:[^'\\\\]|\\\\.)*'|`[^`]*`");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", Pattern.CASE_INSENSITIVE);
    private static final Pattern TOKEN = Pattern.compile("[0-9][0-9a-zA-Z._]*|([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?");

    private PromQlNames() {
    }

    /** The metric names {@code expr} reads, sorted. */
    static Set<String> of(String expr) {
        String s = STRINGS.matcher(expr).replaceAll(" ");
        s = s.replaceAll("\\$\\{[^}]*}|\\$[a-zA-Z_][a-zA-Z0-9_]*", " ");
        s = s.replaceAll("\\{[^}]*}", " ").replaceAll("\\[[^\\]]*]", " ");
        s = GROUPING.matcher(s).replaceAll(" ");
        Set<String> names = new TreeSet<>();
        Matcher m = TOKEN.matcher(s);
        while (m.find()) {
            String id = m.group(1);
            if (id != null && m.group(2) == null && !KEYWORDS.contains(id.toLowerCase(java.util.Locale.ROOT))) {
                names.add(id);
            }
        }
        return names;
    }
}
