package io.dimstream.db.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The one strict decode: every plane's text exact; a bad sequence, an overlong form, an encoded
 * surrogate (CESU-8, Java's modified UTF-8) and a sequence cut at the end refused with the byte,
 * counted from the start of the part decoded.
 */
class StrictUtf8Test {

    private static String outcome(String hex, int offset, int length) {
        byte[] b = HexFormat.of().parseHex(hex);
        try {
            return StrictUtf8.decode(b, offset, length < 0 ? b.length - offset : length);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    @Test
    void goodTextIsExactAndEveryKindOfBadSequenceIsRefusedWithItsByte() {
        List<String> outcomes = new ArrayList<>();
        for (String hex : List.of("61c3a9e282acf09f9880", "61c32862", "78eda080", "eda0bdedb880", "c080", "f09f98", "ff", "")) {
            outcomes.add(outcome(hex, 0, -1));
        }
        outcomes.add(outcome("ff61c32862ff", 1, 4)); // a part of an array: the byte counts from the part
        assertThat(outcomes).containsExactly("aé€😀",
                "not valid UTF-8: malformed byte sequence at byte 1",
                "not valid UTF-8: malformed byte sequence at byte 1",
                "not valid UTF-8: malformed byte sequence at byte 0", // a surrogate pair as CESU-8 writes it
                "not valid UTF-8: malformed byte sequence at byte 0",
                "not valid UTF-8: malformed byte sequence at byte 0",
                "not valid UTF-8: malformed byte sequence at byte 0",
                "",
                "not valid UTF-8: malformed byte sequence at byte 1");
    }
}
