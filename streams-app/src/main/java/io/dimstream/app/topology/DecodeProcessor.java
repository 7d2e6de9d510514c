package io.dimstream.app.topology;

import io.dimstream.app.change.ChangeClass;
import io.dimstream.app.change.ChangeCodec;
import io.dimstream.app.change.SliceMarker;
import io.dimstream.app.change.TruncateMarker;
import io.dimstream.app.decode.Decoded;
import io.dimstream.app.decode.NewFields;
import io.dimstream.db.entity.ColumnType;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeWidening;
import io.dimstream.db.event.Event;
import io.dimstream.db.event.EventValidator;
import io.dimstream.db.event.Unchanged;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes and validates each source record. A valid event goes on re-keyed by its business key as
 * {@link PendingChange} bytes (with no headers); a record that cannot be decoded or validated, whose
 * change cannot be built (an event time beyond the microsecond range, say), or whose repartition or
 * change record would be over the size limit ({@link RecordLimits}) goes on with its original key,
 * value and headers plus the {@link DlqHeaders}, bound for the dead-letter topic, cut to fit that
 * topic's limit ({@link DeadLetters}); a record the decoder skips is counted (by its kind: skipped,
 * truncate, message) and dropped; a truncate to apply goes on as a {@link TruncateMarker}. Never
 * throws for bad input; it throws only when a decoder could not judge the record because something
 * it needs is away ({@link TransientFailures}), for the record to be read again.
 */
final class DecodeProcessor implements Processor<byte[], byte[], byte[], DecodeOutput> {

    private static final Logger LOG = LoggerFactory.getLogger(DecodeProcessor.class);
    private static final Header[] NO_HEADERS = new Header[0];
    /** The most bytes the classifier's class field adds to a change record ({@link ChangeCodec#withClass}). */
    private static final int MAX_CLASS_FIELD = maxClassField();

    private final EntityPipeline pipeline;
    /**
     * The entity as this task knows it: the pipeline's, plus the fields new to it that this task
     * passed through ({@code new-columns:}). Each task infers for itself; the sink adds a column
     * once, with the first type it sees, and coerces the values of the others to it.
     */
    private EntitySpec spec;
    private EventValidator validator;
    /**
     * The columns this task retyped ({@link #widen}), with their SQL types now: named in every change
     * record holding a value of one, so whichever record the sink applies first widens the column,
     * before any value that needs it is written.
     */
    private final Map<String, String> widened = new LinkedHashMap<>();
    private final EventCounters counters;
    private final IgnoredFields ignoredFields;
    /** Where the classifier splices the class into this entity's change JSON (ChangeCodec#classOffset). */
    private final int classOffset;
    private ProcessorContext<byte[], DecodeOutput> context;
    private RecordLimits limits = RecordLimits.DEFAULTS;

    DecodeProcessor(EntityPipeline pipeline, EventCounters counters, IgnoredFields ignoredFields) {
        this.pipeline = pipeline;
        this.spec = pipeline.entity();
        this.validator = new EventValidator(spec);
        this.counters = counters;
        this.ignoredFields = ignoredFields;
        this.classOffset = ChangeCodec.classOffset(pipeline.entity().name());
    }

    @Override
    public void init(ProcessorContext<byte[], DecodeOutput> context) {
        this.context = context;
        // the limits of the Streams config in force, so a raised producer.max.request.size and
        // topic.max.message.bytes raise the check with them
        this.limits = RecordLimits.from(context.appConfigs());
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
            if (TransientFailures.isTransient(e)) {
                // not the record's fault: the processing exception handler fails the thread, the
                // supervisor replaces it with backoff, and this record is read again
                throw e;
            }
            decoded = Decoded.error("decoder failed: " + e);
        }
        if (decoded instanceof Decoded.Skipped s) {
            if (Decoded.Skipped.TRUNCATE.equals(s.kind())) {
                // a truncate of the source table is rare and large: worth a line even when ignored
                LOG.info("{}-{}@{}: {} (entity {}; the history is left as it is)", md.topic(), md.partition(), md.offset(), s.reason(),
                        pipeline.entity().name());
            } else {
                LOG.debug("{}-{}@{} skipped: {}", md.topic(), md.partition(), md.offset(), s.reason());
            }
            counters.count(s.kind());
        } else if (decoded instanceof Decoded.Truncated t) {
            truncate(record, md, t);
        } else if (decoded instanceof Decoded.Failed f) {
            deadLetter(record, md, f.reason());
        } else if (decoded instanceof Decoded.Ok ok) {
            for (String field : ok.ignored()) {
                ignoredFields.count(field, ok.event().source(), null);
            }
            PendingChange pending;
            byte[] key;
            byte[] value;
            try {
                Event event = pipeline.addsColumns() ? passNewFields(ok) : ok.event();
                EventValidator.Result result = validator.validate(event);
                if (!result.ok() && pipeline.widensTypes() && widen(ok, event)) {
                    result = validator.validate(event);
                }
                if (!result.ok()) {
                    deadLetter(record, md, result.rejection().reason());
                    return;
                }
                pending = PendingChange.of(spec, result.event(), classOffset, newColumns(event), widenedColumns(event));
                key = PendingChange.businessKey(spec, result.event());
                value = pending.toBytes();
            } catch (RuntimeException e) {
                // a valid event whose change cannot be built (C1: an event time whose epoch microseconds
                // overflow a long) is this record's problem alone: it must not fail the thread
                deadLetter(record, md, "cannot build the change record: " + DeadLetters.reason(e));
                return;
            }
            String tooBig = tooBig(key, value, pending);
            if (tooBig != null) {
                deadLetter(record, md, tooBig);
                return;
            }
            context.forward(new Record<>(key, new DecodeOutput.ToClassify(value), record.timestamp(), new RecordHeaders()));
        }
    }

    /** {@code new-columns:} ({@link NewFields#pass}): this task's spec grows by the fields new to it. */
    private Event passNewFields(Decoded.Ok ok) {
        NewFields.Passed passed = NewFields.pass(spec, ok.event(), ok.sourceTypes(), pipeline.newColumns(), ignoredFields::count);
        if (passed.spec() != spec) {
            spec = passed.spec();
            validator = new EventValidator(spec);
        }
        return passed.event();
    }

    /**
     * {@code schema-evolution: lenient}, for an event the validator refused: each column whose value
     * its type refuses and a safe widening takes is widened in this task's spec
     * ({@link TypeWidening#forValue}); a column the record's own schema types otherwise, in a way no
     * widening reaches (an integer column the source now sends as a string, say), takes the schema's
     * type, for the sink to stop the partition on ({@code EvolvedColumns#widen}): a change of the
     * source's schema is for someone to decide, not a bad record. True when the spec changed.
     */
    private boolean widen(Decoded.Ok ok, Event e) {
        boolean changed = false;
        for (Map.Entry<String, Object> f : e.data().entrySet()) {
            String c = f.getKey();
            Object raw = f.getValue();
            if (!spec.columns().containsKey(c) || raw == null || raw == Unchanged.VALUE) {
                continue;
            }
            TypeWidening.ColumnDef now = TypeWidening.ColumnDef.of(spec, c);
            Optional<TypeWidening.ColumnDef> wider = TypeWidening.forValue(now, raw);
            if (wider.isEmpty()) {
                ColumnType source = ok.sourceTypes().get(c);
                if (source == null || source == now.type() || TypeWidening.isSafe(TypeWidening.ColumnDef.of(source), now)) {
                    continue; // no schema, or one the column takes: a bad value, for the DLQ
                }
                TypeWidening.ColumnDef retyped = TypeWidening.ColumnDef.of(source);
                if (!retyped.accepts(raw)) {
                    continue;
                }
                wider = Optional.of(retyped);
                LOG.warn("entity {}: the source's schema types column '{}' ({}) as {} at {}; the sink stops the partition there until the "
                        + "column is changed by hand", spec.name(), c, now.sql(), retyped.sql(), e.source());
            } else {
                LOG.info("entity {}: column '{}' ({}) refuses the value at {}; widened to {} in this task", spec.name(), c, now.sql(),
                        e.source(), wider.get().sql());
            }
            spec = spec.withColumnType(c, wider.get());
            widened.put(c, wider.get().sql());
            changed = true;
        }
        if (changed) {
            validator = new EventValidator(spec);
        }
        return changed;
    }

    /** The columns this task retyped that this event holds a value of: the change record names them for the sink. */
    private Map<String, String> widenedColumns(Event e) {
        if (widened.isEmpty()) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> w : widened.entrySet()) {
            Object v = e.data().get(w.getKey());
            if (v != null && v != Unchanged.VALUE) {
                out.put(w.getKey(), w.getValue());
            }
        }
        return out;
    }

    /** The columns of this event the config does not declare, with their types: the change record names them for the sink. */
    private Map<String, String> newColumns(Event e) {
        if (spec.evolved().isEmpty()) {
            return Map.of();
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String c : spec.evolved()) {
            if (e.data().containsKey(c)) {
                out.put(c, spec.type(c).sqlName());
            }
        }
        return out;
    }

    /**
     * Why the repartition record ({@code key}, {@code pending}) or the change record the classifier
     * makes of it would be refused for its size, or null when both fit. Checked here because a record
     * the producer refuses dooms the whole exactly-once transaction (DeadLetterProductionHandler).
     */
    private String tooBig(byte[] key, byte[] encoded, PendingChange pending) {
        int repartition = RecordLimits.upperBound(key, encoded, NO_HEADERS);
        // the change record: the pending change's JSON plus the class field the classifier splices in
        int change = RecordLimits.overhead(key, NO_HEADERS) + pending.unclassified().length + MAX_CLASS_FIELD;
        if (limits.fits(repartition) && limits.fits(change)) {
            return null;
        }
        return "too large: its change record would take " + change + " bytes and its repartition record " + repartition
                + " bytes, over the limit of " + limits.maxRecordBytes() + " bytes (the Streams producer's max.request.size and "
                + "the topics' max.message.bytes)";
    }

    /**
     * An end-of-slice marker of a snapshot feed goes on, checked, to every classify task (the
     * repartition step multicasts it); anything else carrying the control header is refused.
     */
    private void control(Record<byte[], byte[]> record, RecordMetadata md) {
        String kind;
        try {
            kind = SliceMarker.controlKind(record.headers());
        } catch (IllegalArgumentException e) {
            deadLetter(record, md, e.getMessage());
            return;
        }
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
            marker = SliceMarker.fromBytes(record.value());
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
        context.forward(new Record<>(SliceMarker.END_OF_SLICE.getBytes(StandardCharsets.UTF_8), new DecodeOutput.ToClassify(marker.toBytes()),
                record.timestamp(), SliceMarker.mark(new RecordHeaders())));
    }

    /**
     * A truncate of the source table with {@code on-truncate: delete-all}: one {@link TruncateMarker}
     * (for every changes partition) goes on the way of the events, after this source partition's
     * events before it; the repartition step multicasts it to every classify task
     * ({@link SlicePartitioners}), and each task hands it to its changes partition
     * ({@link ClassifyProcessor}).
     */
    private void truncate(Record<byte[], byte[]> record, RecordMetadata md, Decoded.Truncated t) {
        if (!pipeline.deletesOnTruncate()) {
            deadLetter(record, md, "truncate to apply, but the pipeline of entity " + pipeline.entity().name()
                    + " is not on-truncate: delete-all (its decoder and its pipeline disagree)");
            return;
        }
        LOG.info("{}-{}@{}: truncate of the source table at {}: every key of entity {} live then is deleted then (on-truncate: "
                + "delete-all)", md.topic(), md.partition(), md.offset(), t.time(), pipeline.entity().name());
        counters.count(EventCounters.TRUNCATE);
        TruncateMarker marker = new TruncateMarker(pipeline.entity().name(), t.time(), t.source(), OptionalInt.empty());
        context.forward(new Record<>(TruncateMarker.KIND.getBytes(StandardCharsets.UTF_8), new DecodeOutput.ToClassify(marker.toBytes()),
                record.timestamp(), TruncateMarker.mark(new RecordHeaders())));
    }

    private void deadLetter(Record<byte[], byte[]> record, RecordMetadata md, String reason) {
        LOG.debug("{}-{}@{} to {}: {}", md.topic(), md.partition(), md.offset(), pipeline.dlqTopic(), reason);
        counters.count(EventCounters.DLQ);
        DeadLetters.DeadLetter dl = DeadLetters.of(record.key(), record.value(), record.headers(), reason,
                pipeline.entity().name(), md.topic(), md.partition(), md.offset(), limits);
        context.forward(new Record<>(dl.key(), new DecodeOutput.ToDeadLetter(dl.value()), record.timestamp(), dl.headers()));
    }

    private static int maxClassField() {
        int max = 0;
        for (ChangeClass c : ChangeClass.values()) {
            max = Math.max(max, ChangeCodec.withClass(new byte[0], 0, c).length);
        }
        return max;
    }
}
