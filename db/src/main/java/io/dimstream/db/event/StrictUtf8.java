package io.dimstream.db.event;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;

/**
 * Bytes to text, refusing what is not UTF-8. {@code new String(bytes, UTF_8)} replaces a bad
 * sequence with U+FFFD without a word, and a JSON parser reading bytes lets some through (an
 * overlong {@code C0 80} becomes NUL, an encoded surrogate {@code ED A0 80} a lone surrogate).
 * The JDK's decoder, set to report, refuses all of them; this only says where.
 */
public final class StrictUtf8 {

    private StrictUtf8() {
    }

    /** @throws IllegalArgumentException {@code not valid UTF-8: malformed byte sequence at byte N} */
    public static String decode(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder(); // malformed input: REPORT
        ByteBuffer in = ByteBuffer.wrap(bytes);
        CharBuffer out = CharBuffer.allocate(bytes.length); // UTF-8 never gives more chars than bytes
        CoderResult r = decoder.decode(in, out, true);
        if (!r.isError()) {
            r = decoder.flush(out);
        }
        if (r.isError()) {
            throw new IllegalArgumentException("not valid UTF-8: " + (r.isMalformed() ? "malformed" : "unmappable")
                    + " byte sequence at byte " + in.position());
        }
        return out.flip().toString();
    }
}
