package io.dimstream.db.entity;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import io.dimstream.db.json.InputJson;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The canonical text of a jsonb value: the same JSON document gives the same text whatever it came
 * from (a JSON text in a string, as Debezium's {@code io.debezium.data.Json} and the native format's
 * strings carry it; an object or array of the native JSON event; Jackson's nodes; maps and lists
 * of an Avro record), so it hashes alike in every format ({@code record_hash}), and PostgreSQL
 * reads it back as the same jsonb.
 *
 * <p>It is PostgreSQL's own normal form of jsonb, printed without whitespace:
 * <ul>
 *   <li>object keys in jsonb's order: the shorter key (in UTF-8 bytes) first, keys of one length
 *       by their bytes; a key given twice in a JSON text keeps its last value, as in jsonb;</li>
 *   <li>numbers as jsonb keeps them, numerics: exact, no exponent, the digits after the point as
 *       written ({@code 1.50} stays {@code 1.50}, {@code 1e2} is {@code 100}, {@code 1.5e-3} is
 *       {@code 0.0015}): what {@code jsonb::text} prints;</li>
 *   <li>strings escaped as jsonb prints them: {@code \"}, {@code \\}, {@code \b}, {@code \f},
 *       {@code \n}, {@code \r}, {@code \t}, the other control characters as {@code \}{@code u00xx}
 *       (lower-case hex), everything else as itself;</li>
 *   <li>no space after {@code :} or {@code ,}, where {@code jsonb::text} prints one: the only
 *       difference from PostgreSQL's text, which this class reads back to the same canonical text.</li>
 * </ul>
 * Like jsonb's own equality, which compares numbers by value, the hash does not tell {@code 1.0}
 * from {@code 1.00}; unlike it, the canonical text does (they are different texts), so a change
 * of spelling only is a new version.
 *
 * <p>Refused as jsonb refuses them: text that is not exactly one JSON value, a NUL character
 * (jsonb has no {@code \}{@code u0000}) or an unpaired surrogate in a string or key, a number beyond
 * numeric's limits, a double that is not finite; and a nesting deeper than
 * {@value InputJson#MAX_NESTING_DEPTH} levels, dimstream's limit for every JSON it reads.
 */
final class JsonbText {

    /** The native mapper's limits and exact numbers; one JSON value and nothing after it. */
    private static final ObjectReader READER = InputJson.mapper().reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private JsonbText() {
    }

    /**
     * @param v a JSON text (String), a JsonNode, or a plain value (Map, List/Collection, Number,
     *          Boolean, null; a String inside a map or list is a JSON string)
     * @throws IllegalArgumentException naming what is wrong, fit for a rejection reason
     */
    static String canonical(Object v) {
        Object value = v;
        if (v instanceof String text) {
            value = parse(text);
        }
        StringBuilder out = new StringBuilder();
        write(value, out, 0);
        return out.toString();
    }

    private static JsonNode parse(String text) {
        JsonNode node;
        try {
            node = READER.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("expected jsonb (a JSON text), got " + ValueType.describe(text) + ": "
                    + InputJson.notJson(e));
        }
        if (node == null || node.isMissingNode()) {
            throw new IllegalArgumentException("expected jsonb (a JSON text), got " + ValueType.describe(text) + ": no JSON value");
        }
        return node;
    }

    private static void write(Object v, StringBuilder out, int depth) {
        if (depth > InputJson.MAX_NESTING_DEPTH) {
            throw new IllegalArgumentException("jsonb value nests deeper than " + InputJson.MAX_NESTING_DEPTH + " levels");
        }
        if (v == null) {
            out.append("null");
        } else if (v instanceof JsonNode n) {
            writeNode(n, out, depth);
        } else if (v instanceof String s) {
            string(s, out);
        } else if (v instanceof Boolean b) {
            out.append(b ? "true" : "false");
        } else if (v instanceof Number n) {
            number(n, out);
        } else if (v instanceof Map<?, ?> m) {
            List<Map.Entry<byte[], Object>> entries = new ArrayList<>(m.size());
            for (Map.Entry<?, ?> e : m.entrySet()) {
                entries.add(Map.entry(key(e.getKey()), e.getValue() == null ? NULL : e.getValue()));
            }
            object(entries, out, depth);
        } else if (v instanceof Collection<?> c) {
            out.append('[');
            boolean first = true;
            for (Object item : c) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(item, out, depth + 1);
            }
            out.append(']');
        } else {
            throw new IllegalArgumentException("expected jsonb, got " + ValueType.describe(v) + ": not a JSON value");
        }
    }

    /** Stands for a JSON null in an entry (Map.entry takes no null). */
    private static final Object NULL = new Object();

    private static void writeNode(JsonNode n, StringBuilder out, int depth) {
        if (n.isObject()) {
            List<Map.Entry<byte[], Object>> entries = new ArrayList<>(n.size());
            Iterator<Map.Entry<String, JsonNode>> fields = n.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> f = fields.next();
                entries.add(Map.entry(key(f.getKey()), f.getValue()));
            }
            object(entries, out, depth);
        } else if (n.isArray()) {
            out.append('[');
            for (int i = 0; i < n.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(n.get(i), out, depth + 1);
            }
            out.append(']');
        } else if (n.isTextual()) {
            string(n.textValue(), out);
        } else if (n.isBoolean()) {
            out.append(n.booleanValue() ? "true" : "false");
        } else if (n.isIntegralNumber()) {
            number(n.bigIntegerValue(), out);
        } else if (n.isNumber()) {
            number(n.decimalValue(), out);
        } else if (n.isNull()) {
            out.append("null");
        } else {
            throw new IllegalArgumentException("expected jsonb, got a " + n.getNodeType().name().toLowerCase(Locale.ROOT) + " node");
        }
    }

    /**
     * Entries (keys as UTF-8, checked as strings are) in jsonb's key order. No two keys are equal:
     * Jackson's reader keeps the last value of a key given twice, as jsonb does; a map has none.
     */
    private static void object(List<Map.Entry<byte[], Object>> entries, StringBuilder out, int depth) {
        entries.sort((a, b) -> {
            byte[] x = a.getKey();
            byte[] y = b.getKey();
            return x.length != y.length ? Integer.compare(x.length, y.length) : Arrays.compareUnsigned(x, y);
        });
        out.append('{');
        boolean first = true;
        for (int i = 0; i < entries.size(); i++) {
            if (!first) {
                out.append(',');
            }
            first = false;
            string(new String(entries.get(i).getKey(), StandardCharsets.UTF_8), out);
            out.append(':');
            Object value = entries.get(i).getValue();
            write(value == NULL ? null : value, out, depth + 1);
        }
        out.append('}');
    }

    private static byte[] key(Object key) {
        String k = String.valueOf(key);
        check(k);
        return k.getBytes(StandardCharsets.UTF_8);
    }

    private static void check(String s) {
        try {
            TextValues.checkText(s);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("jsonb " + e.getMessage().replace("text contains", "string contains")
                    .replace("which PostgreSQL cannot store", "which jsonb cannot store"));
        }
    }

    /** As PostgreSQL's {@code escape_json}. */
    private static void string(String s, StringBuilder out) {
        check(s);
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    /** As jsonb keeps a number: a numeric, within its limits, printed plain with the digits after the point as given. */
    private static void number(Number n, StringBuilder out) {
        if (n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte) {
            out.append(n.longValue());
            return;
        }
        Object checked;
        try {
            checked = ColumnType.NUMERIC.coerce(n instanceof BigInteger || n instanceof BigDecimal || n instanceof Double
                    || n instanceof Float ? n : new BigDecimal(n.toString()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("jsonb number: " + e.getMessage());
        }
        BigDecimal d = (BigDecimal) checked;
        // within numeric's limits, so a negative scale widens the number to at most 131072 digits
        out.append(d.scale() < 0 ? d.setScale(0).toPlainString() : d.toPlainString());
    }
}
