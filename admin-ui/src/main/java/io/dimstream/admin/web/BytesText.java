package io.dimstream.admin.web;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Raw record bytes (a DLQ record's key, value, headers) as text a page can show: the UTF-8 text
 * when the bytes are valid UTF-8 without control characters other than tab and newlines, else
 * lowercase hex. The text is still escaped by the template where it stands. A preview shows the
 * first bytes of a longer value ({@code truncated}; a UTF-8 character cut at the end is dropped,
 * so a cut text still reads as text).
 *
 * @param encoding  {@code utf-8}, {@code hex}, or {@code null} for a null value
 * @param text      the text, or null for a null value
 * @param length    the whole value's byte count (0 for null)
 * @param truncated whether {@code text} shows only the first bytes
 */
public record BytesText(String encoding, String text, int length, boolean truncated) {

    /** Characters a page shows at once; a longer text is folded behind them ({@link #folded()}). */
    public static final int INLINE_CHARS = 160;

    public static BytesText of(byte[] b) {
        return b == null ? new BytesText("null", null, 0, false) : preview(b, b.length);
    }

    /** The first bytes {@code shown} of a value of {@code length} bytes (null: a null value). */
    public static BytesText preview(byte[] shown, int length) {
        if (shown == null) {
            return new BytesText("null", null, 0, false);
        }
        boolean truncated = length > shown.length;
        byte[] b = truncated ? withoutCutCharacter(shown) : shown;
        try {
            String s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(b)).toString();
            if (s.chars().noneMatch(c -> Character.isISOControl(c) && c != '\t' && c != '\n' && c != '\r')) {
                return new BytesText("utf-8", s, length, truncated);
            }
        } catch (CharacterCodingException e) {
            // not UTF-8: shown as hex
        }
        return new BytesText("hex", HexFormat.of().formatHex(shown), length, truncated);
    }

    /** {@code b} without a UTF-8 sequence cut short at its end (at most 3 bytes). */
    private static byte[] withoutCutCharacter(byte[] b) {
        for (int back = 1; back <= Math.min(3, b.length); back++) {
            int x = b[b.length - back] & 0xff;
            if (x < 0x80) {
                return b;
            }
            if (x >= 0xc0) {
                int need = x >= 0xf0 ? 4 : x >= 0xe0 ? 3 : 2;
                return need > back ? java.util.Arrays.copyOf(b, b.length - back) : b;
            }
        }
        return b;
    }

    /** What a page shows: the text, or NULL. */
    public String shown() {
        return text == null ? "NULL" : text;
    }

    /** Whether the text is longer than {@link #INLINE_CHARS}: a page shows its {@link #head()} and the rest on demand. */
    public boolean folded() {
        return text != null && text.codePointCount(0, text.length()) > INLINE_CHARS;
    }

    /** The first {@link #INLINE_CHARS} characters of the text (all of it when shorter). */
    public String head() {
        String s = shown();
        return folded() ? s.substring(0, s.offsetByCodePoints(0, INLINE_CHARS)) : s;
    }
}
