package io.dimstream.app.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Lines of bytes end where {@link BufferedReader#readLine()} ends them, across the buffer's edge too. */
class ByteLinesTest {

    private static List<String> byteLines(String text) throws IOException {
        ByteLines lines = new ByteLines(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        List<String> out = new ArrayList<>();
        for (byte[] b = lines.next(); b != null; b = lines.next()) {
            out.add(new String(Arrays.copyOf(b, lines.length()), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static List<String> readerLines(String text) throws IOException {
        List<String> out = new ArrayList<>();
        BufferedReader r = new BufferedReader(new StringReader(text));
        for (String l = r.readLine(); l != null; l = r.readLine()) {
            out.add(l);
        }
        return out;
    }

    @Test
    void linesEndAtNewlineCarriageReturnOrBothAsAReaderEndsThem() throws IOException {
        String edge = "x".repeat((1 << 16) - 1);
        for (String text : List.of("", "a", "a\n", "a\nb", "a\r\nb\r\n", "a\rb\r", "\n\n", "\r\n\r\n", "é\n😀\r\n",
                edge + "\r\nb", edge + "\n\nb", "y".repeat(300_000) + "\nz")) {
            assertThat(byteLines(text)).as("%.20s", text).isEqualTo(readerLines(text));
        }
    }
}
