package io.dimstream.app.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.model.CdcOptions;
import io.dimstream.config.model.SeedJsonOptions;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.SystemColumns;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Source;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;

/**
 * Far-future and far-past event times in every format become a reason (the decoder's failure, or
 * the validator's rejection of what it decoded), never an exception: before, a time whose epoch
 * microseconds overflow a long (Debezium {@code ts_ms} = Long.MAX_VALUE, {@code +300000-01-01})
 * killed the stream thread in the classify step, for good.
 */
class ExtremeEventTimesTest {

    private static final String RANGE = " is outside the supported range 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z";
    private static final String TOPIC = "t";

    static final EntitySpec SPEC = spec();

    private static EntitySpec spec() {
        Map<String, ColumnType> cols = new LinkedHashMap<>();
        cols.put("id", ColumnType.TEXT);
        cols.put("updated_micros", ColumnType.BIGINT);
        cols.put("updated_at", ColumnType.TIMESTAMPTZ);
        return EntitySpec.builder()
                .name("e")
                .table("e")
                .key(List.of("id"))
                .tracked(List.of("updated_micros", "updated_at"))
                .columns(cols)
                .latenessHorizon(Optional.empty())
                .build();
    }

    /** What the topology makes of a record: the decoder's failure, or the validator's verdict on the event. */
    private static String outcome(Decoded d) {
        if (d instanceof Decoded.Failed f) {
            return "failed: " + f.reason();
        }
        if (d instanceof Decoded.Skipped s) {
            return "skipped: " + s.reason();
        }
        Event e = ((Decoded.Ok) d).event();
        EventValidator.Result r = new EventValidator(SPEC).validate(e);
        return r.ok() ? "ok at " + r.event().eventTime() + " " + r.event().values() : "rejected: " + r.rejection().reason();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Decoded decode(EventDecoder d, String value) {
        return d.decode(utf8("{\"id\":\"K\"}"), value == null ? null : utf8(value), 1_000L, TOPIC, 0, 5L);
    }

    @Test
    void nativeJson() {
        NativeJsonDecoder d = new NativeJsonDecoder(List.of("id"));
        List<String> out = new ArrayList<>();
        for (String t : List.of("+300000-01-01T00:00:00Z", "-999999999-01-01T00:00:00Z", "0000-06-01T00:00:00Z", "+10000-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999999Z")) {
            out.add(outcome(decode(d, "{\"op\":\"upsert\",\"event_time\":\"" + t + "\",\"data\":{\"id\":\"K\"}}")));
        }
        out.add(outcome(d.decode(utf8("K"), null, Long.MAX_VALUE, TOPIC, 0, 5L)));

        assertThat(out).isEqualTo(List.of(
                "rejected: event_time \"+300000-01-01T00:00:00Z\"" + RANGE,
                "rejected: event_time \"-999999999-01-01T00:00:00Z\"" + RANGE,
                "rejected: event_time \"0000-06-01T00:00:00Z\"" + RANGE,
                "rejected: event_time \"+10000-01-01T00:00:00Z\"" + RANGE,
                "ok at 9999-12-31T23:59:59.999999Z [K, null, null]",
                "failed: tombstone record timestamp 9223372036854775807 (+292278994-08-17T07:12:55.807Z)" + RANGE));
    }

    @Test
    void seedJson() {
        SeedJsonDecoder d = new SeedJsonDecoder(SeedJsonOptions.DEFAULTS);
        List<String> out = new ArrayList<>();
        for (String t : List.of("\"+300000-01-01T00:00:00Z\"", "\"-999999999-01-01T00:00:00Z\"", "9223372036854775807",
                "-9223372036854775808", "9223372036854775808", "1e900000000", "253402300799999")) {
            out.add(outcome(decode(d, "{\"id\":\"K\",\"operation\":\"UPDATE\",\"change_time\":" + t + "}")));
        }

        assertThat(out).isEqualTo(List.of(
                "failed: field 'change_time' \"+300000-01-01T00:00:00Z\"" + RANGE,
                "failed: field 'change_time' \"-999999999-01-01T00:00:00Z\"" + RANGE,
                "failed: field 'change_time' 9223372036854775807 (+292278994-08-17T07:12:55.807Z)" + RANGE,
                "failed: field 'change_time' -9223372036854775808 (-292275055-05-16T16:47:04.192Z)" + RANGE,
                "failed: field 'change_time' 9223372036854775808" + RANGE,
                "failed: field 'change_time' 1E+900000000" + RANGE,
                "ok at 9999-12-31T23:59:59.999Z [K, null, null]"));
    }

    @Test
    void snapshotRows() {
        SnapshotRowDecoder d = new SnapshotRowDecoder("snapshot_time");

        assertThat(List.of(
                outcome(decode(d, "{\"id\":\"K\",\"snapshot_time\":\"+300000-01-01T00:00:00Z\"}")),
                outcome(decode(d, "{\"id\":\"K\",\"snapshot_time\":-9223372036854775808}"))))
                .isEqualTo(List.of(
                        "failed: field 'snapshot_time' \"+300000-01-01T00:00:00Z\"" + RANGE,
                        "failed: field 'snapshot_time' -9223372036854775808 (-292275055-05-16T16:47:04.192Z)" + RANGE));
    }

    @Test
    void debeziumJsonTimesAndMicroTimestampColumns() {
        DebeziumJsonDecoder d = new DebeziumJsonDecoder();
        DebeziumJsonDecoder tsMs = new DebeziumJsonDecoder(new DebeziumEnvelope(CdcOptions.EventTime.TS_MS, null,
                CdcOptions.OnTruncate.IGNORE), DebeziumValues.SCHEMAS_ONLY);
        String after = "{\"id\":\"K\",\"updated_micros\":9223372036854775807}";

        assertThat(List.of(
                outcome(decode(tsMs, "{\"after\":" + after + ",\"op\":\"c\",\"ts_ms\":9223372036854775807}")),
                outcome(decode(tsMs, "{\"after\":" + after + ",\"op\":\"c\",\"ts_ms\":-9223372036854775808}")),
                outcome(decode(d, "{\"after\":" + after + ",\"op\":\"c\",\"source\":{\"ts_ms\":9223372036854775807}}")),
                outcome(decode(d, "{\"after\":" + after + ",\"op\":\"c\",\"source\":{\"ts_ms\":-9223372036854775808}}")),
                outcome(decode(tsMs, "{\"after\":" + after + ",\"op\":\"c\",\"ts_ms\":99999999999999999999}")),
                // io.debezium.time.MicroTimestamp / NanoTimestamp columns are numbers: a bigint column takes the extreme
                outcome(decode(d, "{\"after\":" + after + ",\"op\":\"c\",\"source\":{\"ts_ms\":1755882000000}}")),
                // ... a timestamptz column refuses a number, naming the column
                outcome(decode(d, "{\"after\":{\"id\":\"K\",\"updated_at\":-9223372036854775808},\"op\":\"c\","
                        + "\"source\":{\"ts_ms\":1755882000000}}"))))
                .isEqualTo(List.of(
                        "failed: ts_ms 9223372036854775807 (+292278994-08-17T07:12:55.807Z)" + RANGE,
                        "failed: ts_ms -9223372036854775808 (-292275055-05-16T16:47:04.192Z)" + RANGE,
                        "failed: source.ts_ms 9223372036854775807 (+292278994-08-17T07:12:55.807Z)" + RANGE,
                        "failed: source.ts_ms -9223372036854775808 (-292275055-05-16T16:47:04.192Z)" + RANGE,
                        "failed: ts_ms 99999999999999999999" + RANGE,
                        "ok at 2025-08-22T17:00:00Z [K, 9223372036854775807, null]",
                        "rejected: column 'updated_at': expected timestamp with time zone, got number -9223372036854775808"));
    }

    /** The native Avro event with {@code event_time} of the given Avro type. */
    private static Schema nativeSchema(String eventTimeType) {
        return new Schema.Parser().parse("""
                {"type":"record","name":"Ev","namespace":"x","fields":[
                  {"name":"op","type":"string"},
                  {"name":"event_time","type":%s},
                  {"name":"data","type":{"type":"record","name":"Row","fields":[
                    {"name":"id","type":"string"},
                    {"name":"updated_at","type":["null",{"type":"long","logicalType":"timestamp-micros"}],"default":null}]}}]}"""
                .formatted(eventTimeType));
    }

    private static String nativeAvro(String eventTimeType, Object eventTime, Long updatedAtMicros) {
        Schema schema = nativeSchema(eventTimeType);
        GenericRecord data = new GenericData.Record(schema.getField("data").schema());
        data.put("id", "K");
        data.put("updated_at", updatedAtMicros);
        GenericRecord e = new GenericData.Record(schema);
        e.put("op", "upsert");
        e.put("event_time", eventTime);
        e.put("data", data);
        AvroEventDecoder d = new AvroEventDecoder(new GenericBinaryDeserializer(schema), List.of("id"));
        return outcome(d.decode(null, GenericBinaryDeserializer.write(e), 0, TOPIC, 0, 5L));
    }

    @Test
    void nativeAvroTimestampMillisMicrosNanosAndText() {
        String micros = "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}";
        assertThat(List.of(
                nativeAvro(micros, Long.MAX_VALUE, null),
                nativeAvro(micros, Long.MIN_VALUE, null),
                nativeAvro("{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}", Long.MAX_VALUE, null),
                nativeAvro("{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}", Long.MIN_VALUE, null),
                nativeAvro("\"long\"", Long.MIN_VALUE, null),
                nativeAvro("\"string\"", "+300000-01-01T00:00:00Z", null),
                nativeAvro(micros, 1_755_882_000_000_000L, Long.MIN_VALUE)))
                .isEqualTo(List.of(
                        "failed: event_time +294247-01-10T04:00:54.775807Z" + RANGE,
                        "failed: event_time -290308-12-21T19:59:05.224192Z" + RANGE,
                        "failed: event_time +292278994-08-17T07:12:55.807Z" + RANGE,
                        "ok at 1677-09-21T00:12:43.145224Z [K, null, null]", // cut to microseconds
                        "failed: event_time -9223372036854775808 (-292275055-05-16T16:47:04.192Z)" + RANGE,
                        "failed: event_time \"+300000-01-01T00:00:00Z\"" + RANGE,
                        "rejected: column 'updated_at': timestamp -290308-12-21T19:59:05.224192Z" + RANGE));
    }

    static final Schema ENVELOPE = new Schema.Parser().parse("""
            {"type":"record","name":"Envelope","namespace":"x","fields":[
              {"name":"after","type":["null",{"type":"record","name":"Row","fields":[
                {"name":"id","type":"string"},
                {"name":"updated_micros","type":{"type":"long","connect.name":"io.debezium.time.MicroTimestamp"}}]}]},
              {"name":"op","type":"string"},
              {"name":"ts_ms","type":"long"}]}""");

    @Test
    void debeziumAvroTsMsAndMicroTimestampColumns() {
        // this envelope has no source block: event-time ts_ms; the entity's column types, as Decoders gives them:
        // a bigint column keeps the MicroTimestamp's number
        DebeziumAvroDecoder d = new DebeziumAvroDecoder(new GenericBinaryDeserializer(ENVELOPE),
                new DebeziumEnvelope(CdcOptions.EventTime.TS_MS, null, CdcOptions.OnTruncate.IGNORE),
                new DebeziumValues(Map.of(), null, SPEC.columns(), null));
        List<String> out = new ArrayList<>();
        for (long ts : new long[] {Long.MAX_VALUE, Long.MIN_VALUE, 1_755_882_000_000L}) {
            GenericRecord after = new GenericData.Record(ENVELOPE.getField("after").schema().getTypes().get(1));
            after.put("id", "K");
            after.put("updated_micros", Long.MIN_VALUE);
            GenericRecord e = new GenericData.Record(ENVELOPE);
            e.put("after", after);
            e.put("op", "c");
            e.put("ts_ms", ts);
            out.add(outcome(d.decode(null, GenericBinaryDeserializer.write(e), 0, TOPIC, 0, 5L)));
        }

        assertThat(out).isEqualTo(List.of(
                "failed: ts_ms 9223372036854775807 (+292278994-08-17T07:12:55.807Z)" + RANGE,
                "failed: ts_ms -9223372036854775808 (-292275055-05-16T16:47:04.192Z)" + RANGE,
                "ok at 2025-08-22T17:00:00Z [K, -9223372036854775808, null]"));
    }

    @Test
    void theSameValuesReachTheWriterAsTheSinkReadsThemAreRejectedToo() {
        // a change record produced straight to the changes topic, bypassing the topology's decode step
        io.dimstream.app.change.ChangeRecord c = io.dimstream.app.change.ChangeCodec.decode(utf8("{\"entity\":\"e\",\"class\":\"NEW\","
                + "\"op\":\"upsert\",\"event_time\":\"+300000-01-01T00:00:00Z\",\"data\":{\"id\":\"K\"},"
                + "\"source\":{\"topic\":\"t\",\"partition\":0,\"offset\":1}}"));

        assertThat(new EventValidator(SPEC).validate(c.toEvent(9)).rejection())
                .isEqualTo(new io.dimstream.db.event.Rejection(Source.kafka("t", 0, 1L), "event_time +300000-01-01T00:00:00Z" + RANGE));
    }
}
