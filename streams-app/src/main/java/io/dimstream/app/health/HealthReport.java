package io.dimstream.app.health;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An answer of {@code /health/live} or {@code /health/ready}: up when every check is up, and each
 * check with a one-line detail of what it saw.
 */
public record HealthReport(boolean up, Map<String, Check> checks) {

    /** One part of the service, as the probe saw it. */
    public record Check(boolean up, String detail) {
        static Check up(String detail) {
            return new Check(true, detail);
        }

        static Check down(String detail) {
            return new Check(false, detail);
        }
    }

    public HealthReport {
        checks = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(checks));
    }

    static HealthReport of(Map<String, Check> checks) {
        return new HealthReport(checks.values().stream().allMatch(Check::up), checks);
    }

    /** {"status":"UP"|"DOWN","checks":{"name":{"status":...,"detail":...},...}} */
    public Map<String, Object> toJson() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", up ? "UP" : "DOWN");
        Map<String, Object> cs = new LinkedHashMap<>();
        checks.forEach((name, c) -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("status", c.up() ? "UP" : "DOWN");
            m.put("detail", c.detail());
            cs.put(name, m);
        });
        out.put("checks", cs);
        return out;
    }
}
