package io.dimstream.app.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeRecord;
import io.dimstream.app.change.TestChanges;
import io.dimstream.db.apply.ShapeChange;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Op;
import io.dimstream.db.event.Unchanged;
import io.dimstream.db.schema.EvolvedColumns;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The columns a group of change records names, with the records that hold a value of each (their
 * typed key and their source; one carrying the value on holds none), and the widenings with the
 * record asking for each, so that the apply pipeline adds or widens no column for erased keys only
 * and names the first holder that is not erased (BatchApplierTest has that part).
 */
class SinkShapeChangeTest {

    private static final EntitySpec SPEC = EntitySpec.builder().name("people").table("dim_people").key(List.of("region", "id"))
            .tracked(List.of("email")).columns(columns()).latenessHorizon(Optional.empty()).build();

    @Test
    void eachNewColumnComesWithTheKeysAndSourcesOfTheRecordsThatHoldAValueOfIt() {
        TopicPartition tp = new TopicPartition("app.people.changes", 0);
        List<ConsumerRecord<byte[], byte[]>> records = List.of(
                record(tp, 0, change("eu", 7L, 10, Map.of("nickname", "text"))),
                record(tp, 1, change("us", 1L, 11, Map.of())),
                record(tp, 2, change("eu", 8L, 12, Map.of("nickname", "text", "tier", "bigint"))),
                record(tp, 3, carriedOn(change("us", 2L, 13, Map.of("nickname", "text")), "nickname")));

        ShapeChange change = SinkSteps.shapeChange(SPEC, List.of(new SinkTransaction.PartitionBatch(tp, OptionalLong.empty(), records, 4, 0L, 1)),
                true);

        assertThat(change.add()).containsExactly(
                new EvolvedColumns.NewColumn("nickname", ColumnType.TEXT, true, "crm.people-0@10"),
                new EvolvedColumns.NewColumn("tier", ColumnType.BIGINT, true, "crm.people-0@12"));
        assertThat(change.carriers()).isEqualTo(Map.of(
                "nickname", List.of(new ShapeChange.Carrier(List.of("eu", "7"), "crm.people-0@10"),
                        new ShapeChange.Carrier(List.of("eu", "8"), "crm.people-0@12")),
                "tier", List.of(new ShapeChange.Carrier(List.of("eu", "8"), "crm.people-0@12"))));
    }

    @Test
    void eachWideningComesWithTheKeyAndSourceOfTheRecordThatAsksForIt() {
        TopicPartition tp = new TopicPartition("app.people.changes", 0);
        ChangeRecord plain = change("eu", 7L, 20, Map.of());
        ChangeRecord wide = new ChangeRecord(plain.entity(), plain.changeClass(), plain.op(), plain.eventTime(), plain.data(),
                plain.sourceTopic(), plain.sourcePartition(), plain.sourceOffset(), Map.of(), Map.of("email", "character varying(40)"));

        ShapeChange change = SinkSteps.shapeChange(SPEC, List.of(new SinkTransaction.PartitionBatch(tp, OptionalLong.empty(),
                List.of(record(tp, 0, wide)), 1, 0L, 1)), true);

        EvolvedColumns.Widening widening = new EvolvedColumns.Widening("email",
                io.dimstream.db.entity.TypeWidening.ColumnDef.parse("character varying(40)"), "crm.people-0@20");
        assertThat(change.widen()).containsExactly(widening);
        assertThat(change.widenedBy()).isEqualTo(Map.of(widening, new ShapeChange.Carrier(List.of("eu", "7"), "crm.people-0@20")));
    }

    private static ChangeRecord change(String region, long id, long sourceOffset, Map<String, String> newColumns) {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("region", region);
        data.put("id", id);
        data.put("email", region + id + "@x");
        newColumns.keySet().forEach(c -> data.put(c, c.equals("tier") ? (Object) 3L : "n" + id));
        return new ChangeRecord("people", ChangeClass.NEW, Op.UPSERT, Instant.parse("2025-08-01T00:00:00Z"), data, "crm.people", 0,
                sourceOffset, newColumns);
    }

    /** {@code c} with {@code column}'s value carried on (the topology's task knew the column; this record lacks it). */
    private static ChangeRecord carriedOn(ChangeRecord c, String column) {
        Map<String, Object> data = new LinkedHashMap<>(c.data());
        data.put(column, Unchanged.VALUE);
        return new ChangeRecord(c.entity(), c.changeClass(), c.op(), c.eventTime(), data, c.sourceTopic(), c.sourcePartition(),
                c.sourceOffset(), c.newColumns());
    }

    private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset, ChangeRecord change) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, new byte[0], TestChanges.encode(change));
    }

    private static Map<String, ColumnType> columns() {
        Map<String, ColumnType> c = new LinkedHashMap<>();
        c.put("region", ColumnType.TEXT);
        c.put("id", ColumnType.BIGINT);
        c.put("email", ColumnType.TEXT);
        return c;
    }
}
