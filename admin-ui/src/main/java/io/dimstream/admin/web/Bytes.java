package io.dimstream.admin.web;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Raw record bytes (a DLQ record's key, value, headers) as text a page can show: the UTF-8 text
 * when the bytes are valid UTF-8 without control characters other than tab and newlines, else
 * lowercase hex. The text is still escaped by the template where it stands.
 *
 * @param encoding {@code utf-8}, {@code hex}, or {@code null} for a null value
 * @param text     the text, or null for a null value
 * @param length   the byte count (0 for null)
 */
public record Bytes(String encoding, String text, int length) {

    public static Bytes of(byte[] b) {
        if (b == null) {
            return new Bytes("null", null, 0);
        }
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
            if (s.chars().noneMatch(c -> Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r')) {
                return new Bytes("utf-8", s, b.length);
            }
        } catch (CharacterCodingException e) {
            // not UTF-8: shown as hex
        }
        return new Bytes("hex", HexFormat.of().formatHex(b), b.length);
    }

    /** What a page shows: the text, or NULL. */
    public String shown() {
        return text == null ? "NULL" : text;
    }
}
