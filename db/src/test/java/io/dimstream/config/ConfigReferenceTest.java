package io.dimstream.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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
                        + ConfigReference.REGENERATE + "\n(or run io.dimstream.config.ConfigReference's main from the repository's root)")
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
        assertThat(md).contains("| `sink.batch-size` | integer | `5000` | Events per PostgreSQL transaction, at most.");
        assertThat(md).contains("| `batch-size` | integer | `10000` | Deprecated: the old name of `load.batch-size`");
        assertThat(md).contains("| `postgres.password` | text |  | **Secret.** ");
    }

    @Test
    void everyKeyPathIsDeclaredOnce() {
        List<String> paths = ConfigKeys.documented().stream().flatMap(s -> s.keys().stream()).map(ConfigKey::path).toList();

        assertThat(paths).doesNotHaveDuplicates();
    }
}
