package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every help text reads as whole sentences at picocli's default 80 columns. picocli prints each
 * element of a {@code description} array on a line of its own (wrapping inside it), and lists a
 * verb under {@code dimstream --help} by its description's first element only (or its header's): an element that
 * stops mid-sentence cuts the sentence at a line break. So a description is one element (picocli
 * wraps it), or each of its elements ends a sentence; a verb's first element is a sentence.
 */
class HelpTextTest {

    /** picocli's default usage width. */
    private static final int COLUMNS = 80;

    private static List<CommandLine> everyCommand() {
        List<CommandLine> out = new ArrayList<>();
        collect(DimstreamCli.commandLine(), out);
        return out;
    }

    private static void collect(CommandLine cmd, List<CommandLine> out) {
        out.add(cmd);
        cmd.getSubcommands().values().forEach(sub -> collect(sub, out));
    }

    private static boolean endsASentence(String text) {
        String t = text.replace("%n", "").strip(); // picocli's own help verb ends its element with a line break
        return t.endsWith(".") || t.endsWith("?") || t.endsWith("!");
    }

    @Test
    void everyCommandDescriptionIsMadeOfWholeSentences() {
        List<String> cut = new ArrayList<>();
        for (CommandLine cmd : everyCommand()) {
            for (String element : cmd.getCommandSpec().usageMessage().description()) {
                if (!endsASentence(element)) {
                    cut.add(cmd.getCommandSpec().qualifiedName() + ": \"" + element + "\"");
                }
            }
        }
        assertThat(cut).as("command description elements that stop mid-sentence").isEmpty();
    }

    @Test
    void everyOptionDescriptionIsOneElementOrWholeSentences() {
        List<String> cut = new ArrayList<>();
        for (CommandLine cmd : everyCommand()) {
            CommandSpec spec = cmd.getCommandSpec();
            List<ArgSpec> args = new ArrayList<>(spec.options());
            args.addAll(spec.positionalParameters());
            for (ArgSpec a : args) {
                String[] d = a.description();
                if (d.length > 1) {
                    for (String element : d) {
                        if (!endsASentence(element)) {
                            cut.add(spec.qualifiedName() + " " + a.paramLabel() + ": \"" + element + "\"");
                        }
                    }
                }
            }
        }
        assertThat(cut).as("option descriptions of several elements with one that stops mid-sentence").isEmpty();
    }

    @Test
    void everyUsageFitsEightyColumns() {
        List<String> wide = new ArrayList<>();
        for (CommandLine cmd : everyCommand()) {
            String usage = cmd.getUsageMessage(Ansi.OFF);
            for (String line : usage.split("\n")) {
                if (line.length() > COLUMNS) {
                    wide.add(cmd.getCommandSpec().qualifiedName() + ": " + line);
                }
            }
        }
        assertThat(wide).as("usage lines wider than " + COLUMNS + " columns").isEmpty();
    }

    @Test
    void theVerbListShowsEachVerbsFirstSentenceWhole() {
        CommandLine cli = DimstreamCli.commandLine();
        String usage = cli.getUsageMessage(Ansi.OFF);
        Map<String, String> listed = new LinkedHashMap<>();
        String verb = null;
        for (String line : usage.substring(usage.indexOf("Commands:\n") + "Commands:\n".length()).split("\n")) {
            Matcher m = VERB_LINE.matcher(line);
            if (m.matches()) {
                verb = m.group(1);
                listed.put(verb, m.group(2));
            } else if (verb != null && !line.isBlank()) {
                listed.merge(verb, line.strip(), (a, b) -> a + " " + b);
            }
        }
        Map<String, String> expected = new LinkedHashMap<>();
        cli.getSubcommands().forEach((name, sub) -> { // picocli lists a verb by its header, else its description's first element
            String[] header = sub.getCommandSpec().usageMessage().header();
            expected.put(name, header.length > 0 ? header[0] : sub.getCommandSpec().usageMessage().description()[0]);
        });
        assertThat(listed).containsExactlyEntriesOf(expected);
        assertThat(listed.values()).allMatch(HelpTextTest::endsASentence);
    }

    /** A verb's first line in the list: two spaces, the verb, spaces, the start of its description. */
    private static final Pattern VERB_LINE = Pattern.compile("  ([a-z-]+) +(\\S.*)");
}
