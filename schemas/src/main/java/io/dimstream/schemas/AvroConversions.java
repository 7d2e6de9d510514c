package io.dimstream.schemas;

import org.apache.avro.Conversions;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;

/** Avro's logical type conversions, all in one place. */
public final class AvroConversions {

    private AvroConversions() {
    }

    /**
     * Adds Avro's conversions for every logical type it ships ({@code decimal}, {@code uuid}, {@code date},
     * {@code time-*}, {@code timestamp-*}, {@code local-timestamp-*}) to {@code data} and returns it. A
     * writer using it accepts both the raw value ({@code long} micros) and the Java one ({@code Instant}).
     */
    public static GenericData withAll(GenericData data) {
        data.addLogicalTypeConversion(new Conversions.DecimalConversion());
        data.addLogicalTypeConversion(new Conversions.UUIDConversion());
        data.addLogicalTypeConversion(new TimeConversions.DateConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimeMillisConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimeMicrosConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampNanosConversion());
        data.addLogicalTypeConversion(new TimeConversions.LocalTimestampMillisConversion());
        data.addLogicalTypeConversion(new TimeConversions.LocalTimestampMicrosConversion());
        data.addLogicalTypeConversion(new TimeConversions.LocalTimestampNanosConversion());
        return data;
    }
}
