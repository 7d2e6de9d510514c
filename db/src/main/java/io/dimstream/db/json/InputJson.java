package io.dimstream.db.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one mapper every JSON that comes from outside is read with (source records of every JSON
 * format, tombstone keys, change records, end-of-slice markers, load files, jsonb values), with
 * these limits set explicitly, so no input costs unbounded work or stack:
 * <ul>
 *   <li>nesting depth {@value #MAX_NESTING_DEPTH}: the deepest legitimate input, a Debezium record
 *       with its schema, nests about 8 levels; a deeper one is refused while it is read (a record
 *       nested 100,000 levels deep costs 65 levels of parsing, never a StackOverflowError);</li>
 *   <li>number length {@value #MAX_NUMBER_LENGTH} characters (Jackson's default, written down):
 *       a numeric column with more digits takes them as a JSON string, up to PostgreSQL's own
 *       limits ({@code ColumnType.coerce});</li>
 *   <li>string length {@value #MAX_STRING_LENGTH} characters (Jackson's default, written down);</li>
 *   <li>field name length {@value #MAX_NAME_LENGTH} characters: a column name has at most 63 bytes.</li>
 * </ul>
 * One value per text: content after it (whitespace aside) is refused, {@code {...}{...}} included,
 * never read as the first object with the rest dropped. {@link #readTree(String)} says so with the
 * byte where the content starts ({@link TrailingContent}); the mapper itself has
 * {@link DeserializationFeature#FAIL_ON_TRAILING_TOKENS} on, so any other read of a whole text on it
 * refuses it too. Values read from inside a parser (a field at a time) go through {@link #embedded()},
 * which leaves the rest of the text to the parser, and the text is checked at its end
 * ({@link #requireEnd}).
 * Decimals are kept exact (BigDecimal). It sits below both the entity's types
 * ({@code io.dimstream.db.entity}, which reads jsonb values) and the event codec
 * ({@code io.dimstream.db.event}, which reads events typed by the entity), so neither needs the other
 * for it.
 */
public final class InputJson {

    public static final int MAX_NESTING_DEPTH = 64;
    public static final int MAX_NUMBER_LENGTH = 1000;
    public static final int MAX_STRING_LENGTH = 20_000_000;
    public static final int MAX_NAME_LENGTH = 1000;

    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_NESTING_DEPTH)
                            .maxNumberLength(MAX_NUMBER_LENGTH)
                            .maxStringLength(MAX_STRING_LENGTH)
                            .maxNameLength(MAX_NAME_LENGTH)
                            .build())
                    .build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();
    /** For a value inside a text read on by the caller: no trailing-token check after it. */
    private static final ObjectReader EMBEDDED = MAPPER.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private InputJson() {
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** A value read from inside a parser the caller reads on (the parser on the value's first token). */
    public static ObjectReader embedded() {
        return EMBEDDED;
    }

    /**
     * The one JSON value of {@code text} as a tree (null for an empty text).
     *
     * @throws TrailingContent when anything but whitespace follows the value
     * @throws JsonProcessingException when the text is not JSON or beyond the limits above
     */
    public static JsonNode readTree(String text) throws JsonProcessingException {
        try (JsonParser p = MAPPER.getFactory().createParser(text)) {
            if (p.nextToken() == null) {
                return null;
            }
            JsonNode node = EMBEDDED.readTree(p);
            requireEnd(p, text);
            return node;
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a parser over a String does no I/O
        }
    }

    /**
     * Refuses what follows the value {@code p} has just read to its end, when it is not whitespace.
     *
     * @param text the whole text {@code p} reads
     * @throws TrailingContent naming the byte (of the text's UTF-8) where the content starts
     */
    public static void requireEnd(JsonParser p, String text) throws TrailingContent {
        int i = (int) Math.min(text.length(), Math.max(0, p.currentLocation().getCharOffset()));
        while (i < text.length() && isJsonWhitespace(text.charAt(i))) {
            i++;
        }
        if (i < text.length()) {
            throw new TrailingContent("trailing content after the JSON value at byte " + utf8Length(text, i), p);
        }
    }

    /** The UTF-8 length of {@code text}'s first {@code end} chars (a pair of surrogates is 4 bytes). */
    static long utf8Length(String text, int end) {
        long n = 0;
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            n += c < 0x80 ? 1 : c < 0x800 || Character.isSurrogate(c) ? 2 : 3;
        }
        return n;
    }

    private static boolean isJsonWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    /** Content after a text's one JSON value: its message is the reason, {@code trailing content after the JSON value at byte N}. */
    public static final class TrailingContent extends JsonProcessingException {
        private static final long serialVersionUID = 1L;

        TrailingContent(String message, JsonParser p) {
            super(message, p.currentLocation());
        }
    }

    /**
     * The reason a text is not read: {@code not valid JSON: ...}, or, for JSON beyond the limits
     * above, {@code JSON beyond dimstream's input limits: ...}, or for content after the value
     * {@code trailing content after the JSON value at byte N}.
     */
    public static String notJson(JsonProcessingException e) {
        if (e instanceof TrailingContent) {
            return e.getOriginalMessage();
        }
        if (e instanceof StreamConstraintsException) {
            return "JSON beyond dimstream's input limits: " + e.getOriginalMessage();
        }
        return "not valid JSON: " + e.getOriginalMessage();
    }
}
