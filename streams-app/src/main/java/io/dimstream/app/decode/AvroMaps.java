package io.dimstream.app.decode;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;

/**
 * An Avro {@link GenericRecord} as plain Java values the column types accept: strings ({@code Utf8}
 * and enum symbols) as String, nested records as maps, and the logical types decimal (BigDecimal),
 * date (LocalDate), timestamp-millis and timestamp-micros (Instant). Values a deserializer already
 * converted (BigDecimal, Instant, ...) are kept.
 */
final class AvroMaps {

    private AvroMaps() {
    }

    static Map<String, Object> toMap(GenericRecord record) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Schema.Field f : record.getSchema().getFields()) {
            m.put(f.name(), plain(record.get(f.pos()), f.schema()));
        }
        return m;
    }

    private static Object plain(Object v, Schema schema) {
        if (v == null) {
            return null;
        }
        Schema s = schema.getType() == Schema.Type.UNION
                ? schema.getTypes().get(GenericData.get().resolveUnion(schema, v)) : schema;
        LogicalType logical = s.getLogicalType();
        if (logical instanceof LogicalTypes.Decimal d && (v instanceof ByteBuffer || v instanceof GenericFixed)) {
            return new BigDecimal(new BigInteger(bytes(v)), d.getScale());
        }
        if (logical instanceof LogicalTypes.Date && v instanceof Integer days) {
            return LocalDate.ofEpochDay(days);
        }
        if (logical instanceof LogicalTypes.TimestampMillis && v instanceof Long ms) {
            return Instant.ofEpochMilli(ms);
        }
        if (logical instanceof LogicalTypes.TimestampMicros && v instanceof Long us) {
            return Instant.EPOCH.plus(us, ChronoUnit.MICROS);
        }
        if (v instanceof CharSequence || v instanceof GenericEnumSymbol<?>) {
            return v.toString();
        }
        if (v instanceof GenericRecord r) {
            return toMap(r);
        }
        if (v instanceof Map<?, ?> map) {
            Map<String, Object> m = new LinkedHashMap<>();
            map.forEach((k, x) -> m.put(k.toString(), plain(x, s.getValueType())));
            return m;
        }
        if (v instanceof Collection<?> c) {
            List<Object> list = new ArrayList<>(c.size());
            c.forEach(x -> list.add(plain(x, s.getElementType())));
            return list;
        }
        if (v instanceof ByteBuffer || v instanceof GenericFixed) {
            return bytes(v);
        }
        return v;
    }

    private static byte[] bytes(Object v) {
        if (v instanceof GenericFixed f) {
            return f.bytes().clone();
        }
        ByteBuffer b = ((ByteBuffer) v).duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
