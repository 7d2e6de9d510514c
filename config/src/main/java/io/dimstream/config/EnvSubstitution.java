package io.dimstream.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replaces {@code ${VAR}} in every string value of a parsed config tree with the variable's
 * value from the environment. {@code $${} writes a literal {@code ${}. A variable that is not
 * set, or a malformed reference, is a problem naming the variable and the field.
 */
final class EnvSubstitution {

    private static final Pattern REFERENCE = Pattern.compile("\\$\\$\\{|\\$\\{([A-Za-z_][A-Za-z0-9_]*)}|\\$\\{");

    private final Map<String, String> env;
    private final List<String> problems = new ArrayList<>();

    private EnvSubstitution(Map<String, String> env) {
        this.env = env;
    }

    /** Substitutes in place; returns the problems found (empty when all resolved). */
    static List<String> apply(JsonNode root, Map<String, String> env) {
        EnvSubstitution s = new EnvSubstitution(env);
        s.walk(root, "");
        return s.problems;
    }

    private void walk(JsonNode node, String path) {
        if (node instanceof ObjectNode object) {
            Iterator<Map.Entry<String, JsonNode>> fields = object.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> f = fields.next();
                String child = path.isEmpty() ? f.getKey() : path + "." + f.getKey();
                if (f.getValue().isTextual()) {
                    f.setValue(TextNode.valueOf(substitute(f.getValue().asText(), child)));
                } else {
                    walk(f.getValue(), child);
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                String child = path + "[" + i + "]";
                if (array.get(i).isTextual()) {
                    array.set(i, TextNode.valueOf(substitute(array.get(i).asText(), child)));
                } else {
                    walk(array.get(i), child);
                }
            }
        }
    }

    private String substitute(String value, String path) {
        Matcher m = REFERENCE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String replacement;
            if (m.group().equals("$${")) {
                replacement = "${";
            } else if (m.group(1) == null) {
                problems.add(path + ": malformed ${...} reference (write ${NAME} with a variable name, or $${ for a literal ${)");
                replacement = m.group();
            } else {
                String v = env.get(m.group(1));
                if (v == null) {
                    problems.add(path + ": environment variable " + m.group(1) + " is not set");
                    replacement = m.group();
                } else {
                    replacement = v;
                }
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }
}
