package io.dimstream.db.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

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
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    private InputJson() {
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /**
     * The reason a text is not read: {@code not valid JSON: ...}, or, for JSON beyond the limits
     * above, {@code JSON beyond dimstream's input limits: ...}.
     */
    public static String notJson(JsonProcessingException e) {
        if (e instanceof StreamConstraintsException) {
            return "JSON beyond dimstream's input limits: " + e.getOriginalMessage();
        }
        return "not valid JSON: " + e.getOriginalMessage();
    }
}
