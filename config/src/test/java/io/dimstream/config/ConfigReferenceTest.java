package io.dimstream.config;

import io.dimstream.config.keys.ConfigKey;
import io.dimstream.config.keys.ConfigKeys;
import io.dimstream.config.keys.ConfigReference;
import io.dimstream.config.keys.ConfigSection;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/config-reference.md} is generated from {@link ConfigKeys}: this test fails when it is
 * stale and rewrites it when run with {@code -Ddimstream.config-reference.write=true}.
 */
class ConfigReferenceTest {

    /** The repository's root: the tests run in the module's directory. */
    private static final Path FILE = Path.of("..").resolve(ConfigReference.FILE).normalize();

    @Test
    void theCommittedReferenceIsTheGeneratedOne() throws IOException {
        String generated = ConfigReference.markdown();
        if (Boolean.getBoolean("dimstream.config-reference.write")) {
            Files.createDirectories(FILE.toAbsolutePath().getParent());
            Files.writeString(FILE, generated, StandardCharsets.UTF_8);
        }
        String committed = Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "";

        assertThat(committed)
                .as(ConfigReference.FILE + " is not the reference ConfigKeys generates: regenerate it with\n  "
                        + ConfigReference.REGENERATE + "\n(or run io.dimstream.config.keys.ConfigReference's main from the repository's root)")
                .isEqualTo(generated);
    }

    @Test
    void theReferenceHasATablePerSectionWithEveryKey() {
        String md = ConfigReference.markdown();

        for (ConfigSection s : ConfigKeys.documented()) {
            assertThat(md).contains(s.path().isEmpty() ? "## Top level\n" : "## `" + s.path() + "`\n");
            for (ConfigKey<?> k : s.keys()) {
                assertThat(md).contains("| `" + k.path() + "` | ");
            }
        }
        assertThat(md).contains("| `sink.batch-size` | integer | `20000` | Events per PostgreSQL transaction, at most.");
        assertThat(md).doesNotContain("Deprecated");
        assertThat(md).contains("| `postgres.password` | text |  | **Secret.** ");
    }

    /** The entities' keys are read from the table alone: an entity's unknown key is refused naming exactly its keys. */
    @Test
    void anEntitysKnownKeysAreTheTablesEntityKeys() {
        String refusal = DimstreamConfigTest.refusal(DimstreamConfigTest.DESIGN_EXAMPLE.replace("    table: dim_customer", "    tabel: dim_customer"));

        assertThat(refusal).isEqualTo("config test.yml: entities[0].tabel: unknown key (known here: "
                + String.join(", ", ConfigKeys.ENTITY.knownNames()) + ")");
    }

    /** The masked dump prints an entity under the table's keys only, so what it prints reads back. */
    @Test
    void theDumpPrintsAnEntityUnderItsDeclaredKeys() throws IOException {
        DimstreamConfig config = DimstreamConfigTest.parse(DimstreamConfigTest.DESIGN_EXAMPLE);
        Set<String> printed = new TreeSet<>();
        new YAMLMapper().readTree(config.describeMasked()).get("entities").get(0).fieldNames().forEachRemaining(printed::add);

        assertThat(ConfigKeys.ENTITY.knownNames()).containsAll(printed);
        assertThat(printed).contains("name", "topic", "format", "table", "key", "tracked", "type1", "columns", "system-columns");
    }

    @Test
    void everyKeyPathIsDeclaredOnce() {
        List<String> paths = ConfigKeys.documented().stream().flatMap(s -> s.keys().stream()).map(ConfigKey::path).toList();

        assertThat(paths).doesNotHaveDuplicates();
    }
}
