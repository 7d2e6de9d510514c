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
}
