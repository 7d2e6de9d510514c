package io.dimstream.admin.asof;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CsvTest {

    private static String line(String... cells) throws Exception {
        StringWriter w = new StringWriter();
        Csv.line(w, Arrays.asList(cells));
        return w.toString();
    }

    private static String rawLine(String... cells) throws Exception {
        StringWriter w = new StringWriter();
        Csv.line(w, Arrays.asList(cells), false);
        return w.toString();
    }

    @Test
    void quotingAndNullVersusEmpty() throws Exception {
        assertThat(line("C1", null, "", "a,b", "say \"hi\"", "two\nlines"))
                .isEqualTo("C1,,\"\",\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n");
    }

    @Test
    void wouldBeFormulasAreWrittenAsTextAndNumbersStayNumbers() throws Exception {
        assertThat(line("=HYPERLINK(\"http://evil\",\"x\")", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx", "-5", "+1.5e3", "-0.25",
                "a=b", "1-2"))
                .isEqualTo("\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",'+cmd|' /C calc'!A0,'-2+3,'@SUM(A1),'\tx,-5,+1.5e3,-0.25,"
                        + "a=b,1-2\r\n");
    }

    @Test
    void aFormulaAfterLeadingSpacesOrInvisibleFormatCharactersIsDefusedToo() throws Exception {
        assertThat(line(" =1+1", "\u00a0@SUM(A1)", "\u202E=cmd", "\u200B+x", " -5", "  text", "\u202Eplain"))
                .isEqualTo("' =1+1,'\u00a0@SUM(A1),'\u202E=cmd,'\u200B+x, -5,  text,\u202Eplain\r\n");
    }

    @Test
    void theRawExportWritesEveryValueExactlyAndStillQuotes() throws Exception {
        assertThat(rawLine("=HYPERLINK(\"http://evil\",\"x\")", "+49 30 1234", " =1+1", null, ""))
                .isEqualTo("\"=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",+49 30 1234, =1+1,,\"\"\r\n");
    }
}
