package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.decode.Decoded;
import io.dimstream.db.event.EventValidator;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes and validates each source record. A valid event goes on re-keyed by its business key as
 * {@link PendingChange} bytes (with no headers); a record that cannot be decoded or validated goes on
 * with its original key, value and headers plus the {@link DlqHeaders}, bound for the dead-letter
 * topic; a record the decoder skips is counted and dropped. Never throws for bad input.
 */
final class DecodeProcessor implements Processor<byte[], byte[], byte[], Routed> {

    private static final Logger LOG = LoggerFactory.getLogger(DecodeProcessor.class);

    private final EntityPipeline pipeline;
    private final EventValidator validator;
    private final EventCounters counters;
    /** Where the classifier splices the class into this entity's change JSON (ChangeCodec#classOffset). */
    private final int classOffset;
    private ProcessorContext<byte[], Routed> context;

    DecodeProcessor(EntityPipeline pipeline, EventCounters counters) {
        this.pipeline = pipeline;
        this.validator = new EventValidator(pipeline.entity());
        this.counters = counters;
        this.classOffset = ChangeCodec.classOffset(pipeline.entity().name());
    }

    @Override
    public void init(ProcessorContext<byte[], Routed> context) {
        this.context = context;
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        RecordMetadata md = context.recordMetadata().orElseThrow(() ->
                new IllegalStateException("decode step of " + pipeline.entity().name() + " called without a source record"));
        if (SliceMarker.isControl(record.headers())) {
            control(record, md);
            return;
        }
        Decoded decoded;
        try {
            decoded = pipeline.decoder().decode(record.key(), record.value(), record.timestamp(), md.topic(), md.partition(), md.offset());
        } catch (RuntimeException e) {
            decoded = Decoded.error("decoder failed: " + e);
        }
        if (decoded instanceof Decoded.Skipped s) {
            LOG.debug("{}-{}@{} skipped: {}", md.topic(), md.partition(), md.offset(), s.reason());
            counters.count(EventCounters.SKIPPED);
        } else if (decoded instanceof Decoded.Failed f) {
            deadLetter(record, md, f.reason());
        } else if (decoded instanceof Decoded.Ok ok) {
            EventValidator.Result result = validator.validate(ok.event());
            if (!result.ok()) {
                deadLetter(record, md, result.rejection().reason());
                return;
            }
            PendingChange pending = PendingChange.of(pipeline.entity(), result.event(), classOffset);
            context.forward(new Record<>(PendingChange.businessKey(pipeline.entity(), result.event()),
                    new Routed(true, pending.encode()), record.timestamp(), new RecordHeaders()));
        }
    }

    /**
     * An end-of-slice marker of a snapshot feed goes on, checked, to every classify task (the
     * repartition step multicasts it); anything else carrying the control header is refused.
     */
    private void control(Record<byte[], byte[]> record, RecordMetadata md) {
        String kind = SliceMarker.controlKind(record.headers());
        if (!pipeline.snapshot()) {
            deadLetter(record, md, "control record (" + SliceMarker.HEADER + "=" + kind + ") on the topic of entity "
                    + pipeline.entity().name() + ", which is not mode: snapshot");
            return;
        }
        if (!SliceMarker.END_OF_SLICE.equals(kind)) {
            deadLetter(record, md, "unknown control record kind " + SliceMarker.HEADER + "=" + kind + " (known: "
                    + SliceMarker.END_OF_SLICE + ")");
            return;
        }
        SliceMarker marker;
        try {
            marker = SliceMarker.decode(record.value());
        } catch (IllegalArgumentException e) {
            deadLetter(record, md, e.getMessage());
            return;
        }
        if (!marker.entity().equals(pipeline.entity().name())) {
            deadLetter(record, md, "end-of-slice marker of entity '" + marker.entity() + "' on the topic of entity '"
                    + pipeline.entity().name() + "'");
            return;
        }
        if (marker.partition() != md.partition()) {
            deadLetter(record, md, "end-of-slice marker says partition " + marker.partition() + " but is on partition " + md.partition());
            return;
        }
        counters.count(EventCounters.CONTROL);
        context.forward(new Record<>(SliceMarker.END_OF_SLICE.getBytes(StandardCharsets.UTF_8), new Routed(true, marker.encode()),
                record.timestamp(), SliceMarker.mark(new RecordHeaders())));
    }

    private void deadLetter(Record<byte[], byte[]> record, RecordMetadata md, String reason) {
        LOG.debug("{}-{}@{} to {}: {}", md.topic(), md.partition(), md.offset(), pipeline.dlqTopic(), reason);
        counters.count(EventCounters.DLQ);
        Headers headers = new RecordHeaders(record.headers().toArray());
        add(headers, DlqHeaders.ERROR, reason);
        add(headers, DlqHeaders.ENTITY, pipeline.entity().name());
        add(headers, DlqHeaders.SOURCE_TOPIC, md.topic());
        add(headers, DlqHeaders.SOURCE_PARTITION, Integer.toString(md.partition()));
        add(headers, DlqHeaders.SOURCE_OFFSET, Long.toString(md.offset()));
        context.forward(new Record<>(record.key(), new Routed(false, record.value()), record.timestamp(), headers));
    }

    private static void add(Headers headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
