package io.dimstream.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.body.CallableDeclaration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The house stays tidy: no main class file over {@value #MAX_FILE_LINES} lines and no method or
 * constructor over {@value #MAX_METHOD_LINES}, in every module's {@code src/main/java}. A class
 * past them has grown a second job; split it along that job (see the package-info of its package)
 * rather than raise the limit.
 */
class SizeLimitsTest {

    static final int MAX_FILE_LINES = 500;
    static final int MAX_METHOD_LINES = 80;

    private static List<Path> mainSources() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<Path> out = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> Files.isDirectory(m.resolve("src/main/java"))).toList()) {
                try (Stream<Path> files = Files.walk(module.resolve("src/main/java"))) {
                    files.filter(f -> f.toString().endsWith(".java")).forEach(out::add);
                }
            }
        }
        return out;
    }

    @Test
    void theSourcesAreFound() throws IOException {
        assertThat(mainSources()).extracting(p -> p.getFileName().toString())
                .contains("Scd2Writer.java", "ChangeSink.java", "AdminServer.java", "DimstreamCli.java", "BatchApplier.java");
    }

    @Test
    void noMainClassFileIsOver500Lines() throws IOException {
        List<String> over = new ArrayList<>();
        for (Path f : mainSources()) {
            long lines = Files.readAllLines(f).size();
            if (lines > MAX_FILE_LINES) {
                over.add(f.getFileName() + ": " + lines);
            }
        }
        assertThat(over).as("main class files over " + MAX_FILE_LINES + " lines").isEmpty();
    }

    @Test
    void noMethodIsOver80Lines() throws IOException {
        JavaParser parser = new JavaParser(new ParserConfiguration().setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17));
        List<String> over = new ArrayList<>();
        for (Path f : mainSources()) {
            ParseResult<CompilationUnit> parsed = parser.parse(f);
            CompilationUnit unit = parsed.getResult().filter(u -> parsed.isSuccessful())
                    .orElseThrow(() -> new IllegalStateException(f + " does not parse: " + parsed.getProblems()));
            for (CallableDeclaration<?> m : unit.findAll(CallableDeclaration.class)) {
                int lines = m.getEnd().get().line - m.getBegin().get().line + 1;
                if (lines > MAX_METHOD_LINES) {
                    over.add(f.getFileName() + "#" + m.getNameAsString() + ": " + lines);
                }
            }
        }
        assertThat(over).as("methods over " + MAX_METHOD_LINES + " lines").isEmpty();
    }
}
