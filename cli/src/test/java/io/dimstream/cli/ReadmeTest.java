package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The repository's README.md stays a front page (issue 30): under 15,000 bytes, the detail in
 * docs/; the two commands first (CI runs the test command the README gives); and every relative
 * link it has, anchors included, lands on a file and a heading that exist, so moving detail
 * into docs/ cannot leave a dangling link.
 */
class ReadmeTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path README = ROOT.resolve("README.md");
    /** The bound: past it, move detail into docs/ and link it. */
    private static final long MAX_BYTES = 15_000;
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern FENCE = Pattern.compile("(?s)```[a-z]*\\n(.*?)```");

    @Test
    void theReadmeStaysUnder15000Bytes() throws IOException {
        long size = Files.size(README);

        assertThat(size).as("README.md is %,d bytes, over %,d: move detail into docs/ and link it", size, MAX_BYTES)
                .isLessThanOrEqualTo(MAX_BYTES);
    }

    @Test
    void theReadmesFirstCodeBlockIsTheDemoAndTheTestCommand() throws IOException {
        Matcher first = FENCE.matcher(Files.readString(README, StandardCharsets.UTF_8));

        assertThat(first.find()).isTrue();
        assertThat(first.group(1).lines().map(l -> l.replaceAll("\\s+#.*", "")).toList())
                .containsExactly("./dimstream demo", "./mvnw -B verify");
    }

    @Test
    void everyRelativeLinkOfTheReadmeLandsOnAFileAndAHeading() throws IOException {
        String text = Files.readString(README, StandardCharsets.UTF_8);
        List<String> broken = new ArrayList<>();
        Matcher m = LINK.matcher(text);
        while (m.find()) {
            String target = m.group(1);
            if (target.matches("[a-z]+:.*")) {
                continue; // http(s), mailto: not checked here
            }
            int hash = target.indexOf('#');
            Path file = hash == 0 ? README : ROOT.resolve(hash < 0 ? target : target.substring(0, hash)).normalize();
            if (!Files.exists(file)) {
                broken.add(target + ": no file " + ROOT.relativize(file));
            } else if (hash >= 0 && !anchors(file).contains(target.substring(hash + 1))) {
                broken.add(target + ": no heading with that anchor in " + ROOT.relativize(file));
            }
        }
        assertThat(broken).isEmpty();
    }

    /** The anchors GitHub gives a Markdown file's headings (outside code blocks). */
    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        String text = FENCE.matcher(Files.readString(markdown, StandardCharsets.UTF_8)).replaceAll("");
        for (String line : text.lines().toList()) {
            if (line.matches("#{1,6} .*")) {
                anchors.add(slug(line.replaceFirst("#{1,6} ", "")));
            }
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, punctuation dropped, each space a hyphen. */
    static String slug(String heading) {
        return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    @Test
    void aHeadingsAnchorIsGitHubs() {
        assertThat(List.of(slug("Events by class: what each figure counts"), slug("`service.replay`"),
                slug("When something fails: where it shows, what to do")))
                .containsExactly("events-by-class-what-each-figure-counts", "servicereplay", "when-something-fails-where-it-shows-what-to-do");
    }
}
