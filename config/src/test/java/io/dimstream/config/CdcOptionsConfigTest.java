package io.dimstream.config;

import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.ValueEncoding;
import static io.dimstream.config.DimstreamConfigTest.designWith;
import static io.dimstream.config.DimstreamConfigTest.parse;
import static io.dimstream.config.DimstreamConfigTest.refusal;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code event-time}, {@code unavailable-value}, {@code ignore-null-updates}, {@code on-truncate}, {@code encodings}. */
class CdcOptionsConfigTest {

    private static final String FORMAT_LINE = "    format: json                       # json | avro | debezium-json | debezium-avro";

    private static String with(String... lines) {
        return designWith(FORMAT_LINE, "    " + String.join("\n    ", lines));
    }

    @Test
    void debeziumFormatsDefaultToCommitTimeAndDebeziumsPlaceholder() {
        EntityConfig e = parse(with("format: debezium-json")).entity("customer");

        assertThat(e.cdc()).isEqualTo(new CdcOptions(CdcOptions.EventTime.SOURCE_TS_MS, Optional.of("__debezium_unavailable_value"),
                CdcOptions.NullUpdates.NONE, CdcOptions.OnTruncate.IGNORE, Map.of(), CdcOptions.SchemaEvolution.LENIENT, List.of(),
                CdcOptions.NewColumns.TYPE1));
    }

    @Test
    void otherFormatsHaveNoPlaceholderAndTheirOwnTime() {
        EntityConfig e = parse(with("format: json")).entity("customer");

        assertThat(e.cdc()).isEqualTo(new CdcOptions(CdcOptions.EventTime.DEFAULT, Optional.empty(),
                CdcOptions.NullUpdates.NONE, CdcOptions.OnTruncate.IGNORE, Map.of(), CdcOptions.SchemaEvolution.STRICT, List.of()));
    }

    @Test
    void everyOptionIsReadAndShownByTheMaskedDump() {
        DimstreamConfig c = parse(with("format: debezium-avro", "event-time: ts_ms", "unavailable-value: \"??\"",
                "ignore-null-updates: [email, city]", "on-truncate: delete-all", "encodings: {email: io.debezium.data.Json}",
                "schema-evolution: strict"));

        assertThat(c.entity("customer").cdc()).isEqualTo(new CdcOptions(CdcOptions.EventTime.TS_MS, Optional.of("??"),
                new CdcOptions.NullUpdates(false, Set.of("email", "city")), CdcOptions.OnTruncate.DELETE_ALL,
                Map.of("email", "io.debezium.data.Json"), CdcOptions.SchemaEvolution.STRICT, List.of()));
        assertThat(c.describeMasked()).contains("""
                    event-time: ts_ms
                    unavailable-value: ??
                    ignore-null-updates:
                      - email
                      - city
                    on-truncate: delete-all
                    encodings:
                      email: io.debezium.data.Json
                    schema-evolution: strict
                """);
    }

    @Test
    void aFieldAllAndNoneAreAccepted() {
        EntityConfig e = parse(with("format: debezium-json", "event-time: field updated_at", "unavailable-value: none",
                "ignore-null-updates: all")).entity("customer");

        assertThat(e.cdc().eventTime()).isEqualTo(CdcOptions.EventTime.field("updated_at"));
        assertThat(e.cdc().unavailableValue()).isEmpty();
        assertThat(e.cdc().ignoreNullUpdates()).isEqualTo(CdcOptions.NullUpdates.ALL);
        assertThat(e.cdc().ignoreNullUpdates().applies("email")).isTrue();
    }

    @Test
    void wrongValuesAreAllNamed() {
        assertThat(refusal(with("format: json", "event-time: source.ts_ms", "ignore-null-updates: [customer_id, nope, \"\"]",
                "on-truncate: drop", "encodings: {nope: x}", "unavailable-value: \"\"")))
                .isEqualTo("config test.yml: 9 problems: "
                        + "entities[0].event-time: source.ts_ms is a field of Debezium's envelope: only with format: debezium-json or "
                        + "debezium-avro (this entity's format is json); "
                        + "entities[0].unavailable-value: must be a value, or none to turn it off; "
                        + "entities[0].ignore-null-updates[0]: 'customer_id' is a key column (a key is never NULL); "
                        + "entities[0].ignore-null-updates[1]: 'nope' is not a column of the entity; "
                        + "entities[0].ignore-null-updates[2]: must be a column name, got ; "
                        + "entities[0].on-truncate: \"drop\" is neither ignore nor delete-all; "
                        + "entities[0].on-truncate: only used with format: debezium-json or debezium-avro (this entity's format is json); "
                        + "entities[0].encodings.nope: not a column of the entity; "
                        + "entities[0].encodings: only used with format: debezium-json or debezium-avro (this entity's format is json)");
    }

    /** The entity of {@link #with} with the typed columns born (date), price (numeric(10,2)), seen (timestamptz), doc (jsonb). */
    private static String withTypedColumns(String... lines) {
        return with(lines)
                .replace("tracked: [email, full_name, country, city, loyalty_tier]",
                        "tracked: [email, full_name, country, city, loyalty_tier, born, price, seen, doc]")
                .replace("last_login: bigint}", "last_login: bigint, born: date, price: \"numeric(10,2)\", seen: timestamptz, doc: jsonb}");
    }

    @Test
    void encodingsNameDebeziumsSemanticTypesAndADecimalsScale() {
        EntityConfig e = parse(withTypedColumns("format: debezium-json", "encodings:",
                "  born: io.debezium.time.Date",
                "  price: \"org.apache.kafka.connect.data.Decimal( scale = 2 )\"",
                "  seen: io.debezium.time.MicroTimestamp",
                "  doc: io.debezium.data.Json",
                "  city: io.debezium.time.ZonedTime",
                "  last_login: org.apache.kafka.connect.data.Decimal(scale=0)")).entity("customer");

        assertThat(e.cdc().encodings()).isEqualTo(Map.of("born", "io.debezium.time.Date",
                "price", "org.apache.kafka.connect.data.Decimal(scale=2)", "seen", "io.debezium.time.MicroTimestamp",
                "doc", "io.debezium.data.Json", "city", "io.debezium.time.ZonedTime",
                "last_login", "org.apache.kafka.connect.data.Decimal(scale=0)"));
        assertThat(ValueEncoding.parse(e.cdc().encodings().get("price"))).isEqualTo(ValueEncoding.decimal(2));
    }

    @Test
    void anUnknownEncodingADecimalWithoutScaleAndAnEncodingTheColumnCannotTakeAreRefusedNamingTheField() {
        assertThat(refusal(withTypedColumns("format: debezium-avro", "encodings:",
                "  born: io.debezium.time.Datee",
                "  price: org.apache.kafka.connect.data.Decimal",
                "  seen: \"org.apache.kafka.connect.data.Decimal(scale=20000)\"",
                "  last_login: io.debezium.time.Date",
                "  doc: io.debezium.data.Uuid")))
                .isEqualTo("config test.yml: 5 problems: "
                        + "entities[0].encodings.born: unknown encoding \"io.debezium.time.Datee\" (known: io.debezium.time.Date, "
                        + "io.debezium.time.Time, io.debezium.time.MicroTime, io.debezium.time.NanoTime, io.debezium.time.Timestamp, "
                        + "io.debezium.time.MicroTimestamp, io.debezium.time.NanoTimestamp, io.debezium.time.ZonedTimestamp, "
                        + "io.debezium.time.ZonedTime, io.debezium.data.Json, io.debezium.data.Uuid, io.debezium.data.VariableScaleDecimal, "
                        + "org.apache.kafka.connect.data.Decimal(scale=N), org.apache.kafka.connect.data.Date, "
                        + "org.apache.kafka.connect.data.Time, org.apache.kafka.connect.data.Timestamp, bytes); "
                        + "entities[0].encodings.price: \"org.apache.kafka.connect.data.Decimal\": a Decimal needs its scale, as "
                        + "org.apache.kafka.connect.data.Decimal(scale=2); "
                        + "entities[0].encodings.seen: a Decimal's scale must be between -16383 and 16383, got 20000; "
                        + "entities[0].encodings.last_login: io.debezium.time.Date gives a date, which a bigint column does not take "
                        + "(it lands in text, date); "
                        + "entities[0].encodings.doc: io.debezium.data.Uuid gives a UUID, which a jsonb column does not take "
                        + "(it lands in text, uuid)");
    }

    @Test
    void trackedStarTracksEveryColumnButTheKeyType1AndExceptOnes() {
        EntityConfig e = parse(DimstreamConfigTest.designWith("tracked: [email, full_name, country, city, loyalty_tier]",
                "tracked: \"*\"\n    except: [internal_note]")).entity("customer");

        assertThat(e.tracked()).isEqualTo(List.of("email", "full_name", "country", "city", "loyalty_tier"));
        assertThat(e.type1()).isEqualTo(List.of("last_login"));
        assertThat(e.cdc().except()).isEqualTo(List.of("internal_note"));
    }

    @Test
    void trackedStarAndExceptAreCheckedNamingTheField() {
        assertThat(refusal(DimstreamConfigTest.designWith("tracked: [email, full_name, country, city, loyalty_tier]",
                "tracked: \"*\"\n    except: [city, \"\"]")))
                .isEqualTo("config test.yml: 2 problems: "
                        + "entities[0].except[0]: 'city' is a column of the entity: except lists source fields the entity leaves out "
                        + "(dropped when read), so leave it out of columns or out of except; "
                        + "entities[0].except[1]: must be a field name, got nothing");
        assertThat(refusal(DimstreamConfigTest.designWith("tracked: [email, full_name, country, city, loyalty_tier]",
                "tracked: [email, full_name, country, city, loyalty_tier]\n    except: [city]")))
                .isEqualTo("config test.yml: entities[0].except: only with tracked: \"*\"");
        assertThat(refusal(with("format: json", "schema-evolution: loose")))
                .isEqualTo("config test.yml: entities[0].schema-evolution: \"loose\" is neither lenient nor strict");
    }

    @Test
    void eventTimeMustBeOneOfTheForms() {
        assertThat(refusal(with("format: debezium-json", "event-time: commit")))
                .isEqualTo("config test.yml: entities[0].event-time: \"commit\" is none of source.ts_ms, ts_ms, field NAME");
    }

    @Test
    void snapshotModeRefusesAnEventTimeItWouldIgnore() {
        assertThat(refusal(with("format: json", "mode: snapshot", "event-time: field updated_at")))
                .isEqualTo("config test.yml: entities[0].event-time: not with mode: snapshot (a slice row's time is its snapshot-time-field)");
        assertThat(refusal(with("format: json", "mode: snapshot", "event-time: source.ts_ms")))
                .isEqualTo("config test.yml: entities[0].event-time: not with mode: snapshot (a slice row's time is its snapshot-time-field)");
    }

    @Test
    void deleteAllNeedsATimeATruncateCarries() {
        assertThat(refusal(with("format: debezium-json", "event-time: field updated_at", "on-truncate: delete-all")))
                .isEqualTo("config test.yml: entities[0].on-truncate: delete-all needs the truncate's time, which a truncate event "
                        + "carries only in its envelope (it has no row image): not with event-time: field updated_at");
        assertThat(parse(with("format: debezium-avro", "event-time: ts_ms", "on-truncate: delete-all")).entity("customer").cdc())
                .isEqualTo(new CdcOptions(CdcOptions.EventTime.TS_MS, Optional.of("__debezium_unavailable_value"),
                        CdcOptions.NullUpdates.NONE, CdcOptions.OnTruncate.DELETE_ALL, Map.of(), CdcOptions.SchemaEvolution.LENIENT,
                        List.of(), CdcOptions.NewColumns.TYPE1));
        assertThat(parse(with("format: debezium-json", "event-time: field updated_at", "on-truncate: ignore")).entity("customer")
                .cdc().eventTime()).isEqualTo(CdcOptions.EventTime.field("updated_at"));
    }

    /**
     * Issue 31: a column added at the source never stops a history by default, whatever tracked says:
     * lenient, tracked "*" tracks it; a list of tracked columns makes it type-1 (it failed before:
     * ignore, and every record with the field went to the DLQ); undeclared-columns given keeps it
     * out; a strict entity adds nothing and drops the field.
     */
    @Test
    void newColumnsDefaultsKeepAHistoryGoingWhateverTrackedSays() {
        String listed = "tracked: [email, full_name, country, city, loyalty_tier]";
        for (String format : List.of("debezium-json", "debezium-avro", "avro")) {
            EntityConfig starred = parse(DimstreamConfigTest.designWith(listed, "tracked: \"*\"")
                    .replace(FORMAT_LINE, "    format: " + format)).entity("customer");
            assertThat(starred.cdc().newColumns()).as(format).isEqualTo(CdcOptions.NewColumns.TRACKED);
            assertThat(starred.cdc().evolvesColumns()).as(format).isTrue();
            EntityConfig plain = parse(with("format: " + format)).entity("customer");
            assertThat(plain.cdc().newColumns()).as(format).isEqualTo(CdcOptions.NewColumns.TYPE1);
            assertThat(plain.cdc().evolvesColumns()).as(format).isTrue();
            assertThat(plain.rejectUndeclaredColumns()).as(format).isFalse();
            for (String undeclared : List.of("ignore", "reject")) {
                EntityConfig given = parse(with("format: " + format, "undeclared-columns: " + undeclared)).entity("customer");
                assertThat(given.cdc().newColumns()).as(format + " " + undeclared).isEqualTo(CdcOptions.NewColumns.IGNORE);
                assertThat(given.rejectUndeclaredColumns()).as(format + " " + undeclared).isEqualTo(undeclared.equals("reject"));
            }
        }
        // json and seed-json are strict: nothing is added while running, the field is dropped (not refused)
        for (String format : List.of("json", "seed-json")) {
            EntityConfig strict = parse(DimstreamConfigTest.designWith(listed, "tracked: \"*\"")
                    .replace(FORMAT_LINE, "    format: " + format)).entity("customer");
            assertThat(strict.cdc().newColumns()).as(format).isEqualTo(CdcOptions.NewColumns.IGNORE);
            assertThat(strict.rejectUndeclaredColumns()).as(format).isFalse();
        }
        // a lenient json entity adds as a Debezium one does
        assertThat(parse(with("format: json", "schema-evolution: lenient")).entity("customer").cdc().newColumns())
                .isEqualTo(CdcOptions.NewColumns.TYPE1);
        DimstreamConfig explicit = parse(with("format: debezium-avro", "new-columns: tracked"));
        assertThat(explicit.entity("customer").cdc()).isEqualTo(new CdcOptions(CdcOptions.EventTime.SOURCE_TS_MS,
                Optional.of("__debezium_unavailable_value"), CdcOptions.NullUpdates.NONE, CdcOptions.OnTruncate.IGNORE, Map.of(),
                CdcOptions.SchemaEvolution.LENIENT, List.of(), CdcOptions.NewColumns.TRACKED));
        assertThat(explicit.describeMasked()).contains("""
                    schema-evolution: lenient
                    new-columns: tracked
                """);
        // undeclared-columns is printed when it is not the default
        assertThat(parse(with("format: json", "undeclared-columns: reject")).describeMasked()).contains("    undeclared-columns: reject\n");
        assertThat(parse(with("format: json", "undeclared-columns: ignore")).describeMasked()).doesNotContain("undeclared-columns");
    }

    @Test
    void newColumnsIsCheckedNamingTheField() {
        assertThat(refusal(with("format: debezium-json", "new-columns: always")))
                .isEqualTo("config test.yml: entities[0].new-columns: \"always\" is none of tracked, type1, ignore");
        assertThat(refusal(with("format: json", "new-columns: tracked")))
                .isEqualTo("config test.yml: entities[0].new-columns: tracked only with schema-evolution: lenient (this entity's is "
                        + "strict): a strict entity does not add the fields it does not declare");
        assertThat(refusal(with("format: debezium-json", "new-columns: type1", "undeclared-columns: reject")))
                .isEqualTo("config test.yml: entities[0].new-columns: type1 makes each field the entity does not declare a column, so "
                        + "undeclared-columns: reject would never apply: leave one of them out");
        assertThat(refusal(with("format: avro", "new-columns: tracked", "undeclared-columns: ignore")))
                .isEqualTo("config test.yml: entities[0].new-columns: tracked makes each field the entity does not declare a column, so "
                        + "undeclared-columns: ignore would never apply: leave one of them out");
        assertThat(refusal(with("format: debezium-json", "undeclared-columns: drop")))
                .isEqualTo("config test.yml: entities[0].undeclared-columns: \"drop\" is neither ignore nor reject");
        assertThat(parse(with("format: json", "new-columns: ignore")).entity("customer").cdc().newColumns())
                .isEqualTo(CdcOptions.NewColumns.IGNORE);
    }
}
