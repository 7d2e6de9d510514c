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
 * The JDK's decoder, set to report, refuses all of them (an encoded surrogate, as CESU-8 and Java's
 * modified UTF-8 write one, is malformed UTF-8); this only says where.
 *
 * <p>The one decode of bytes to text for everything dimstream reads from outside: a record's JSON
 * value and key, a control header, every Avro string and map key ({@code AvroValues}), the lines of
 * a loaded JSON file and a CSV file's header.
 */
public final class StrictUtf8 {

    private StrictUtf8() {
    }

    /** @throws IllegalArgumentException {@code not valid UTF-8: malformed byte sequence at byte N} */
    public static String decode(byte[] bytes) {
        return decode(bytes, 0, bytes.length);
    }

    /**
     * The {@code length} bytes from {@code offset}, as {@link #decode(byte[])}; the byte named in the
     * message counts from {@code offset}.
     */
    public static String decode(byte[] bytes, int offset, int length) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder(); // malformed input: REPORT
        ByteBuffer in = ByteBuffer.wrap(bytes, offset, length);
        CharBuffer out = CharBuffer.allocate(length); // UTF-8 never gives more chars than bytes
        CoderResult r = decoder.decode(in, out, true);
        if (!r.isError()) {
            r = decoder.flush(out);
        }
        if (r.isError()) {
            throw new IllegalArgumentException("not valid UTF-8: " + (r.isMalformed() ? "malformed" : "unmappable")
                    + " byte sequence at byte " + (in.position() - offset));
        }
        return out.flip().toString();
    }
}
