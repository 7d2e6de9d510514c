package io.dimstream.app.topology;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processing exception handler (DESIGN section 6): any exception a step of the topology throws
 * for a record sends that record to its entity's DLQ and lets the stream thread go on with the next
 * one (RESUME), so no record can stop or loop a thread. The DLQ copy is the record as read
 * ({@link ErrorHandlerContext#sourceRawKey()} and value: the source record for the decode step, the
 * repartition record for the classify step), with the {@link DlqHeaders} the decode step writes:
 * {@code dimstream.error} is the exception's class and message, and the source topic, partition and
 * offset are where the record was read (the repartition topic for the classify step).
 *
 * <p>A transient failure ({@link TransientFailures}: the schema registry away, a Kafka timeout) says
 * nothing about the record: FAIL, so the thread dies, the stream thread supervisor replaces it with
 * backoff, and the record is read again.
 */
public final class DeadLetterProcessingHandler implements ProcessingExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterProcessingHandler.class);

    private DeadLetterRoutes routes;
    private RecordLimits limits;

    @Override
    public void configure(Map<String, ?> configs) {
        routes = DeadLetterRoutes.from(configs);
        limits = RecordLimits.from(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        String at = context.topic() + "-" + context.partition() + "@" + context.offset();
        if (TransientFailures.isTransient(exception)) {
            LOG.warn("{} (step {}): transient failure, the record will be read again: {}", at, context.processorNodeId(),
                    DeadLetters.reason(exception));
            return Response.fail();
        }
        DeadLetterRoutes.Route route = routes.forTopic(context.topic()).orElse(null);
        if (route == null) {
            LOG.error("{} (step {}) failed and no DLQ is known for topic {}; failing the stream thread",
                    at, context.processorNodeId(), context.topic(), exception);
            return Response.fail();
        }
        LOG.warn("{} (step {}) failed; to {}: {}", at, context.processorNodeId(), route.dlqTopic(), DeadLetters.reason(exception));
        LOG.debug("{} failure", at, exception);
        DeadLetters.DeadLetter dl = DeadLetters.of(context.sourceRawKey(), context.sourceRawValue(),
                context.headers() == null ? null : new RecordHeaders(context.headers().toArray()),
                DeadLetters.reason(exception), route.entity(), context.topic(), context.partition(), context.offset(), limits);
        route.counters().count(EventCounters.DLQ);
        return Response.resume(List.of(new ProducerRecord<>(route.dlqTopic(), null, context.timestamp() < 0 ? null : context.timestamp(), dl.key(), dl.value(),
                dl.headers())));
    }
}
