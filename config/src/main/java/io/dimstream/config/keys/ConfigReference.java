package io.dimstream.config.keys;

import io.dimstream.db.secrets.Secrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the config reference ({@code docs/config-reference.md}) from the {@link ConfigKeys} table:
 * one markdown table per section (key, type, default, description). {@code ConfigReferenceTest}
 * fails when the file differs from {@link #markdown()}; regenerate it with
 * {@value #REGENERATE}.
 */
public final class ConfigReference {

    /** Where the reference lives, from the repository's root. */
    public static final String FILE = "docs/config-reference.md";

    /** The command that rewrites {@link #FILE}. */
    public static final String REGENERATE = "./mvnw -o -q -B test -pl config -am -Dtest=ConfigReferenceTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Ddimstream.config-reference.write=true";

    private ConfigReference() {
    }

    /** The whole reference. */
    public static String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("<!-- Generated from io.dimstream.config.keys.ConfigKeys: do not edit by hand. Regenerate with\n     ")
                .append(REGENERATE).append(" -->\n\n");
        b.append("# Configuration reference\n\n");
        b.append(ConfigKeys.ROOT.description()).append("\n\n");
        b.append("Durations are ISO-8601 (`PT0.2S`, `PT5M`, `P30D`). Secrets (`postgres.password`, the admin's passwords and tokens, "
                + "secret-named Kafka and deserializer settings, passwords inside URLs) are masked as `" + Secrets.MASK
                + "` wherever the config is printed (`dimstream config`, the start of `dimstream run`).\n");
        for (ConfigSection section : ConfigKeys.documented()) {
            b.append("\n## ").append(section.path().isEmpty() ? "Top level" : "`" + section.path() + "`").append("\n\n");
            if (!section.path().isEmpty()) {
                b.append(section.description()).append("\n\n");
            }
            if (!section.sections().isEmpty()) {
                b.append("Sections: ").append(String.join(", ", section.sections().stream()
                        .map(s -> "`" + s.name() + ":`").toList())).append(".\n\n");
            }
            b.append("| key | type | default | description |\n|---|---|---|---|\n");
            for (ConfigKey<?> k : section.keys()) {
                b.append("| `").append(k.path()).append("` | ").append(cell(k.type())).append(" | ")
                        .append(cell(defaultText(k.defaultText())))
                        .append(" | ").append(cell((k.secret() ? "**Secret.** " : "") + k.description())).append(" |\n");
            }
        }
        return b.toString();
    }

    /** A literal default in backticks; prose ({@code none}, {@code required}, a sentence) as it is. */
    private static String defaultText(String text) {
        boolean prose = text.isEmpty() || text.equals("none") || text.equals("required") || text.startsWith("`") || text.contains(" ");
        return prose ? text : "`" + text + "`";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    /** Rewrites the reference: {@code args[0]} is the file (default {@value #FILE}, from the working directory). */
    public static void main(String[] args) throws IOException {
        Path file = Path.of(args.length > 0 ? args[0] : FILE);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, markdown(), StandardCharsets.UTF_8);
    }
}
