package io.dimstream.db.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One JSON value per text: what follows it (whitespace aside) is refused with the byte of the
 * text's UTF-8 where it starts, whatever it is (another value, a stray token, text no JSON reader
 * would tokenize); and the mapper's own whole-text reads refuse it too.
 */
class InputJsonTest {

    private static String outcome(String text) {
        try {
            return String.valueOf(InputJson.readTree(text));
        } catch (JsonProcessingException e) {
            return InputJson.notJson(e);
        }
    }

    @Test
    void contentAfterTheValueIsRefusedNamingItsByteAndWhitespaceIsNot() {
        List<String> texts = List.of("{\"a\":1}{\"b\":2}", "{\"a\":\"é\"} x", "{\"a\":\"😀\"},", "[1]]", "123 x", "\"s\" \"t\"", "null null",
                "{\"a\":1} \r\n\t", "  {\"a\":1}", "", "   ", "{\"a\":1", "{\"a\":1}\u00a0");
        List<String> outcomes = new ArrayList<>();
        texts.forEach(t -> outcomes.add(outcome(t)));
        assertThat(outcomes).containsExactly(
                "trailing content after the JSON value at byte 7",
                "trailing content after the JSON value at byte 11",  // é is two bytes
                "trailing content after the JSON value at byte 12",  // the emoji four
                "trailing content after the JSON value at byte 3",
                "trailing content after the JSON value at byte 4",
                "trailing content after the JSON value at byte 4",
                "trailing content after the JSON value at byte 5",
                "{\"a\":1}",
                "{\"a\":1}",
                "null",
                "null",
                "not valid JSON: Unexpected end-of-input: expected close marker for Object (start marker at [Source: REDACTED "
                        + "(`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 1])",
                "trailing content after the JSON value at byte 7"); // a no-break space is no JSON whitespace
    }

    @Test
    void theMappersOwnWholeTextReadsRefuseTrailingTokensToo() {
        assertThatThrownBy(() -> InputJson.mapper().readTree("{\"a\":1}{\"b\":2}"))
                .isInstanceOf(JsonProcessingException.class)
                .hasMessageStartingWith("Trailing token (of type START_OBJECT) found after value");
    }
}
