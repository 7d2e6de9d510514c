package io.dimstream.config;

import java.util.List;

/**
 * A config dimstream refuses. Lists every problem found, each naming its field path
 * ({@code entities[0].lateness-horizon: ...}), so one run shows everything to fix.
 */
public final class ConfigException extends RuntimeException {

    private final List<String> problems;

    /** @param source what was read, e.g. {@code config /etc/dimstream.yml} */
    public ConfigException(String source, List<String> problems) {
        super(format(source, problems));
        this.problems = List.copyOf(problems);
    }

    /** One problem not tied to a file (e.g. looking up an entity the config does not have). */
    public ConfigException(String problem) {
        super(problem);
        this.problems = List.of(problem);
    }

    /** Each problem, field path first. */
    public List<String> problems() {
        return problems;
    }

    private static String format(String source, List<String> problems) {
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        if (problems.size() == 1) {
            return source + ": " + problems.get(0);
        }
        return source + ": " + problems.size() + " problems: " + String.join("; ", problems);
    }
}
