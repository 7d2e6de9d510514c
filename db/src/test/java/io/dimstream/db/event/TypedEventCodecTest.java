package io.dimstream.db.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeModifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Example;

/**
 * {@link TypedEventCodec}: every column type, NULL and unchanged values, deletes, lineage and seq
 * survive a round trip exactly (whole events compared), and a record of another shape or form is
 * not taken as typed.
 */
class TypedEventCodecTest {

    /** Every column type, a numeric with a modifier, a type-1 column, and a tracked column added while running. */
    static final EntitySpec ENTITY = entity(Set.of("nickname"));

    static EntitySpec entity(Set<String> evolved) {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("n", ColumnType.BIGINT);
        cols.put("s", ColumnType.SMALLINT);
        cols.put("i", ColumnType.INTEGER);
        cols.put("amount", ColumnType.NUMERIC);
        cols.put("ratio", ColumnType.NUMERIC);
        cols.put("d", ColumnType.DOUBLE);
        cols.put("b", ColumnType.BOOLEAN);
        cols.put("day", ColumnType.DATE);
        cols.put("at", ColumnType.TIMESTAMPTZ);
        cols.put("u", ColumnType.UUID_TYPE);
        cols.put("local", ColumnType.TIMESTAMP);
        cols.put("t", ColumnType.TIME);
        cols.put("doc", ColumnType.JSONB);
        cols.put("raw", ColumnType.BYTEA);
        cols.put("note", ColumnType.TEXT);
        cols.put("nickname", ColumnType.TEXT);
        TypeModifier amount = ColumnType.modifierFromConfig("numeric(14,4)").orElseThrow();
        return EntitySpec.builder().name("all_types").table("dim_all_types")
                .key(List.of("id", "n"))
                .tracked(List.of("s", "i", "amount", "ratio", "d", "b", "day", "at", "u", "local", "t", "doc", "raw", "nickname"))
                .type1(List.of("note"))
                .columns(cols)
                .modifiers(Map.of("amount", amount))
                .evolved(evolved)
                .build();
    }

    // ---- the property ----------------------------------------------------------------------------

    @Property(tries = 300)
    void everyValidatedEventSurvivesTheRoundTripWhole(@ForAll("events") Event raw) {
        EventValidator.Result v = new EventValidator(ENTITY).validate(raw);
        assertThat(v.rejection()).isNull();
        TypedEvent e = v.event();
        TypedEventCodec codec = TypedEventCodec.of(ENTITY);

        TypedEvent back = codec.decode(codec.encode(e));

        assertThat(comparable(back)).isEqualTo(comparable(e));
    }

    @Provide
    Arbitrary<Event> events() {
        Arbitrary<Map<String, Object>> attrs = Combinators.combine(List.of(
                        nullable(Arbitraries.longs().between(Short.MIN_VALUE, Short.MAX_VALUE)),
                        nullable(Arbitraries.longs().between(Integer.MIN_VALUE, Integer.MAX_VALUE)),
                        nullable(amounts()),
                        nullable(decimals(-5, 30)),
                        nullable(doubles()),
                        nullable(Arbitraries.of(true, false)),
                        nullable(Arbitraries.longs().between(LocalDate.of(1, 1, 1).toEpochDay(), LocalDate.of(9999, 12, 31).toEpochDay())
                                .map(d -> (Object) LocalDate.ofEpochDay(d))),
                        nullable(micros().map(m -> (Object) Instant.EPOCH.plus(m, ChronoUnit.MICROS))),
                        nullable(Arbitraries.longs().map(l -> (Object) new UUID(l, ~l))),
                        nullable(micros().map(m -> (Object) LocalDateTime.ofInstant(Instant.EPOCH.plus(m, ChronoUnit.MICROS), ZoneOffset.UTC))),
                        nullable(Arbitraries.longs().between(0, 86_399_999_999L).map(m -> (Object) LocalTime.ofNanoOfDay(m * 1000))),
                        nullable(json()),
                        nullable(Arbitraries.bytes().array(byte[].class).ofMaxSize(40).map(b -> (Object) b)),
                        nullable(texts()),
                        nullable(texts())))
                .as(values -> {
                    List<String> names = List.of("s", "i", "amount", "ratio", "d", "b", "day", "at", "u", "local", "t", "doc", "raw", "note",
                            "nickname");
                    Map<String, Object> m = new LinkedHashMap<>();
                    for (int k = 0; k < names.size(); k++) {
                        m.put(names.get(k), values.get(k));
                    }
                    return m;
                });
        Arbitrary<List<String>> unchanged = Arbitraries.of("s", "amount", "d", "doc", "raw", "note", "nickname").list().uniqueElements().ofMaxSize(3);
        Arbitrary<Source> source = Arbitraries.oneOf(
                Combinators.combine(texts().filter(t -> !((String) t).isEmpty()), Arbitraries.integers().between(0, 1000),
                        Arbitraries.longs().greaterOrEqual(0)).as((t, p, o) -> Source.kafka((String) t, p, o)),
                Arbitraries.longs().between(1, 1_000_000).map(l -> Source.line("events.ndjson", l)));
        return Combinators.combine(texts().filter(t -> !((String) t).isEmpty()), Arbitraries.longs(), micros(), attrs, unchanged,
                        Arbitraries.integers().between(0, 9), Arbitraries.longs(), source)
                .as((id, n, time, data, unch, opDraw, seq, src) -> {
                    Map<String, Object> d = new LinkedHashMap<>();
                    d.put("id", id);
                    d.put("n", n);
                    Instant t = Instant.EPOCH.plus(time, ChronoUnit.MICROS);
                    if (opDraw == 0) {
                        return Event.delete(t, d, seq, src);
                    }
                    d.putAll(data);
                    unch.forEach(c -> d.put(c, Unchanged.VALUE));
                    return Event.upsert(t, d, seq, src);
                });
    }

    private static Arbitrary<Object> nullable(Arbitrary<?> a) {
        return a.map(x -> (Object) x).injectNull(0.15);
    }

    /** Microseconds from the epoch within PostgreSQL's range as dimstream takes it (years 1 to 9999). */
    private static Arbitrary<Long> micros() {
        // not ChronoUnit.MICROS.between: it counts in nanoseconds, which overflow a long over these years
        long min = ColumnType.MIN_INSTANT.getEpochSecond() * 1_000_000L;
        long max = ColumnType.MAX_INSTANT.getEpochSecond() * 1_000_000L + ColumnType.MAX_INSTANT.getNano() / 1000;
        return Arbitraries.oneOf(Arbitraries.longs().between(min, max), Arbitraries.of(min, max, 0L, 1L, -1L));
    }

    /** Values numeric(14,4) takes (below 10^10 once rounded), with 0 to 6 decimals: the modifier rounds them to 4. */
    private static Arbitrary<Object> amounts() {
        return Combinators.combine(Arbitraries.longs().between(-9_999_999_999L, 9_999_999_999L), Arbitraries.integers().between(0, 6))
                .as((u, s) -> (Object) BigDecimal.valueOf(u, s));
    }

    /** Any scale in the range, including negative ones ({@code 1E+3}) and trailing zeros ({@code 1.50}). */
    private static Arbitrary<Object> decimals(int minScale, int maxScale) {
        return Combinators.combine(Arbitraries.bigIntegers().between(BigInteger.TEN.pow(20).negate(), BigInteger.TEN.pow(20)),
                Arbitraries.integers().between(minScale, maxScale)).as((u, s) -> (Object) new BigDecimal(u, s));
    }

    private static Arbitrary<Object> doubles() {
        return Arbitraries.oneOf(Arbitraries.doubles().map(d -> (Object) d),
                Arbitraries.of(-0.0d, 0.0d, Double.MIN_VALUE, -Double.MAX_VALUE, 1e-300, 0.1, 1.0 / 3).map(d -> (Object) d));
    }

    /** Any unicode but NUL and unpaired surrogates (the validator refuses those), supplementary characters included. */
    private static Arbitrary<Object> texts() {
        Arbitrary<String> bmp = Arbitraries.strings().withCharRange('\u0001', '\ud7ff').withCharRange('\ue000', '\uffff').ofMaxLength(12);
        Arbitrary<String> special = Arbitraries.of("", "a|b", "\"quoted\"", "back\\slash", "line\nbreak", "\u00e9\u0301", "\ud83d\ude00 smile",
                "\ud800\udc00", "NULL", "\\N", "<unchanged>");
        return Combinators.combine(bmp, special, bmp).as((a, b, c) -> (Object) (a + b + c));
    }

    private static Arbitrary<Object> json() {
        Arbitrary<Object> scalar = Arbitraries.oneOf(texts(), Arbitraries.longs().map(l -> (Object) BigInteger.valueOf(l)),
                decimals(0, 6), Arbitraries.of(true, false).map(b -> (Object) b));
        return Arbitraries.oneOf(
                Arbitraries.maps(Arbitraries.strings().alpha().ofMaxLength(5), scalar).ofMaxSize(4).map(m -> (Object) m),
                scalar.list().ofMaxSize(4).map(l -> (Object) l),
                Arbitraries.strings().alpha().ofMaxLength(8).map(t -> (Object) ("\"" + t + "\"")));
    }

    /** The whole event as equal-comparable values: byte arrays as hex (a record compares arrays by identity). */
    static List<Object> comparable(TypedEvent e) {
        List<Object> values = new ArrayList<>();
        for (Object v : e.values()) {
            values.add(v instanceof byte[] b ? "bytes:" + HexFormat.of().formatHex(b) : v);
        }
        return List.of(e.delete(), e.eventTime(), values, e.hash() == null ? "no hash" : HexFormat.of().formatHex(e.hash()), e.seq(),
                String.valueOf(e.source()));
    }

    // ---- examples --------------------------------------------------------------------------------

    @Example
    void writesTheTypedFormWithScaleMicrosAndMarkers() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("id", "C\u00e91");
        d.put("n", 7L);
        d.put("amount", new BigDecimal("1.5"));
        d.put("ratio", new BigDecimal("1E+3"));
        d.put("d", -0.0d);
        d.put("at", "2025-08-22T17:00:00.000001Z");
        d.put("raw", "\\x00ff");
        d.put("doc", Map.of("b", 1, "a", List.of()));
        d.put("note", Unchanged.VALUE);
        TypedEvent e = new EventValidator(ENTITY).validate(
                Event.upsert(Instant.parse("2025-08-22T17:00:00.123456789Z"), d, 42, Source.kafka("crm", 3, 99))).event();
        TypedEventCodec codec = TypedEventCodec.of(ENTITY);

        String json = new String(codec.encode(e), StandardCharsets.UTF_8);

        assertThat(json).isEqualTo("{\"format\":2,\"shape\":\"" + codec.shape() + "\",\"op\":\"upsert\","
                + "\"event_time\":\"2025-08-22T17:00:00.123456Z\",\"data\":{\"id\":\"C\u00e91\",\"n\":7,\"s\":null,\"i\":null,"
                + "\"amount\":1.5000,\"ratio\":1E+3,\"d\":\"-0.0\",\"b\":null,\"day\":null,\"at\":\"2025-08-22T17:00:00.000001Z\","
                + "\"u\":null,\"local\":null,\"t\":null,\"doc\":\"{\\\"a\\\":[],\\\"b\\\":1}\",\"raw\":\"\\\\x00ff\",\"nickname\":null},"
                + "\"unchanged\":[\"note\"],\"hash\":\"" + java.util.Base64.getEncoder().encodeToString(e.hash()) + "\","
                + "\"source\":{\"topic\":\"crm\",\"partition\":3,\"offset\":99},\"seq\":42}");
        assertThat(comparable(codec.decode(json.getBytes(StandardCharsets.UTF_8)))).isEqualTo(comparable(e));
    }

    @Example
    void aDeleteCarriesItsKeyAndNoHash() {
        TypedEvent e = new EventValidator(ENTITY).validate(Event.delete(Instant.parse("2025-01-01T00:00:00Z"),
                Map.of("id", "C1", "n", 1), 5, Source.kafka("crm", 0, 1))).event();
        TypedEventCodec codec = TypedEventCodec.of(ENTITY);

        String json = new String(codec.encode(e), StandardCharsets.UTF_8);

        assertThat(json).isEqualTo("{\"format\":2,\"shape\":\"" + codec.shape() + "\",\"op\":\"delete\","
                + "\"event_time\":\"2025-01-01T00:00:00.000000Z\",\"data\":{\"id\":\"C1\",\"n\":1},"
                + "\"source\":{\"topic\":\"crm\",\"partition\":0,\"offset\":1},\"seq\":5}");
        assertThat(comparable(codec.decode(json.getBytes(StandardCharsets.UTF_8)))).isEqualTo(comparable(e));
    }

    @Example
    void anotherShapeOrTheUntypedFormIsNotReadable() throws Exception {
        TypedEventCodec mine = TypedEventCodec.of(ENTITY);
        // the same columns, but "nickname" from the config rather than added while running: another hash layout
        TypedEventCodec other = TypedEventCodec.of(entity(Set.of()));
        TypedEvent e = new EventValidator(entity(Set.of())).validate(Event.delete(Instant.parse("2025-01-01T00:00:00Z"),
                Map.of("id", "C1", "n", 1), 5, Source.kafka("crm", 0, 1))).event();
        JsonNode typedOther = NativeEventJson.mapper().readTree(other.encode(e));
        JsonNode untyped = NativeEventJson.mapper().readTree("{\"op\":\"delete\",\"event_time\":\"2025-01-01T00:00:00Z\",\"data\":{\"id\":\"C1\",\"n\":1}}");

        assertThat(other.shape()).isNotEqualTo(mine.shape());
        assertThat(List.of(mine.readable(typedOther), other.readable(typedOther), TypedEventCodec.isTyped(untyped), mine.readable(untyped)))
                .isEqualTo(List.of(false, true, false, false));
        assertThatThrownBy(() -> mine.read(typedOther, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("not a typed event of shape " + mine.shape() + " (format 2, shape \"" + other.shape() + "\")");
    }

    @Example
    void aValueOfTheWrongFormIsRefusedNamingTheColumn() {
        TypedEventCodec codec = TypedEventCodec.of(ENTITY);
        String json = "{\"format\":2,\"shape\":\"" + codec.shape() + "\",\"op\":\"delete\",\"event_time\":\"2025-01-01T00:00:00.000000Z\","
                + "\"data\":{\"id\":\"C1\",\"n\":\"one\"},\"seq\":1}";

        assertThatThrownBy(() -> codec.decode(json.getBytes(StandardCharsets.UTF_8))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("column 'n': \"one\" is not a bigint as the typed form writes it");
    }
}
