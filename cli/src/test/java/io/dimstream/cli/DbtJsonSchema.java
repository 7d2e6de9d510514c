package io.dimstream.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * dbt's JSON schemas for property files ({@code sources:}, {@code models:} ... in any {@code .yml}
 * of a dbt project), from dbt-labs/dbt-jsonschema, and the errors they find in a YAML text
 * (converted to a JSON tree with Jackson's YAML module). Which files, from which commit, and where
 * they are looked for: src/test/resources/dbt-jsonschema/README.md.
 */
final class DbtJsonSchema {

    /** A directory holding the schema files, overriding the places below. */
    static final String DIRECTORY_PROPERTY = "dimstream.dbt-jsonschema";

    /**
     * dbt-jsonschema's {@code schemas/latest_fusion/dbt_yml_files-latest-fusion.json} (what current dbt
     * accepts: it refuses {@code loaded_at_field} and {@code freshness} outside {@code config:}) and
     * {@code schemas/latest/dbt_yml_files-latest.json} (dbt Core 1.x's, which still takes both layouts).
     */
    static final List<String> FILES = List.of("dbt_yml_files-latest-fusion.json", "dbt_yml_files-latest.json");

    private DbtJsonSchema() {
    }

    /**
     * The directory with {@link #FILES}: {@code -Ddimstream.dbt-jsonschema=DIR}, else this module's
     * {@code src/test/resources/dbt-jsonschema}, else a {@code shared/dbt-jsonschema} in the working
     * directory or one of its parents; empty when none holds them.
     */
    static Optional<Path> directory() {
        String given = System.getProperty(DIRECTORY_PROPERTY);
        if (given != null && !given.isBlank()) {
            Path dir = Path.of(given);
            if (!holdsTheFiles(dir)) {
                throw new IllegalStateException("-D" + DIRECTORY_PROPERTY + "=" + given + ": expected " + FILES + " there");
            }
            return Optional.of(dir);
        }
        Path vendored = Path.of("src/test/resources/dbt-jsonschema");
        if (holdsTheFiles(vendored)) {
            return Optional.of(vendored);
        }
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path shared = p.resolve("shared/dbt-jsonschema");
            if (holdsTheFiles(shared)) {
                return Optional.of(shared);
            }
        }
        return Optional.empty();
    }

    /** Where the schemas were looked for, for a test that cannot run without them. */
    static String whereToPutThem() {
        return "dbt's JSON schemas " + FILES + " are not here: put them (dbt-labs/dbt-jsonschema, schemas/latest_fusion/ and "
                + "schemas/latest/) in cli/src/test/resources/dbt-jsonschema/ or a shared/dbt-jsonschema/ above the working directory, "
                + "or pass -D" + DIRECTORY_PROPERTY + "=DIR (src/test/resources/dbt-jsonschema/README.md)";
    }

    private static boolean holdsTheFiles(Path dir) {
        return FILES.stream().allMatch(f -> Files.isRegularFile(dir.resolve(f)));
    }

    /** Per schema file, the errors it finds in {@code yaml} ({@code instance location: message}); empty lists when valid. */
    static Map<String, List<String>> errors(Path directory, String yaml) {
        try {
            JsonNode doc = new YAMLMapper().readTree(yaml);
            Map<String, List<String>> out = new LinkedHashMap<>();
            for (String file : FILES) {
                // draft-07, as both declare; dbt Core's file keeps its definitions under $defs (a later draft's
                // keyword), which the validator warns it does not know: its "#/$defs/..." references resolve all the same
                Schema schema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7)
                        .getSchema(new ObjectMapper().readTree(directory.resolve(file).toFile()));
                out.put(file, schema.validate(doc).stream().map(DbtJsonSchema::line).sorted().toList());
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String line(Error e) {
        return e.getInstanceLocation() + ": " + e.getMessage();
    }

    /** What {@link #errors} gives for a text every schema accepts. */
    static Map<String, List<String>> none() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        FILES.forEach(f -> out.put(f, List.of()));
        return out;
    }
}
