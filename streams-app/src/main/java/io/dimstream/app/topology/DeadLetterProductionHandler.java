package io.dimstream.app.topology;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The production exception handler, the last net behind the decode step's size check:
 * <ul>
 *   <li>a retriable send error (a timeout, a leader moving): RETRY (Kafka Streams re-processes the
 *       task from its last commit);</li>
 *   <li>a send refused for the record itself ({@link RecordTooLargeException}, {@link RecordBatchTooLargeException},
 *       {@link InvalidRecordException}, {@link InvalidTimestampException}): a DLQ record for the entity,
 *       cut to fit ({@link DeadLetters}), and RESUME. Its value is the source record when Kafka Streams still
 *       has it, else the refused record (the change or repartition record, which carries the event's data);
 *       a DLQ record refused in turn is sent again with its value cut to a quarter, down to none, then
 *       dropped with an ERROR log line naming the source record;</li>
 *   <li>anything else (authorization, a fenced producer): FAIL.</li>
 * </ul>
 *
 * <p>With {@code exactly_once_v2}, which dimstream runs, a send the producer or the broker refuses also
 * moves the transactional producer into an abortable error state: the transaction that carried the
 * refused record, and with it this handler's DLQ record, is aborted, and the stream thread fails. That
 * is why the decode step never hands the producer a record over {@link RecordLimits} (nor a DLQ copy:
 * {@link DeadLetters} cuts it to fit), and why this handler is a net for the case the check cannot see,
 * such as a changes or DLQ topic created by hand with a smaller {@code max.message.bytes}: there the
 * thread fails and the stream thread supervisor stops the client (the error names the topic), which is
 * loud, rather than looping on the record.
 */
public final class DeadLetterProductionHandler implements ProductionExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterProductionHandler.class);

    private DeadLetterRoutes routes;
    private RecordLimits limits;

    @Override
    public void configure(Map<String, ?> configs) {
        routes = DeadLetterRoutes.from(configs);
        limits = RecordLimits.from(configs);
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record, Exception exception) {
        if (exception instanceof RetriableException) {
            LOG.warn("sending to {} failed, will retry: {}", record.topic(), exception.toString());
            return Response.retry();
        }
        if (!refusesTheRecord(exception)) {
            LOG.error("sending to {} failed; failing the stream thread", record.topic(), exception);
            return Response.fail();
        }
        DeadLetterRoutes.Route route = routes.forTopic(record.topic())
                .or(() -> routes.forTopic(context == null ? null : context.topic())).orElse(null);
        if (route == null) {
            LOG.error("sending to {} was refused and no DLQ is known for it; failing the stream thread", record.topic(), exception);
            return Response.fail();
        }
        if (record.headers().lastHeader(DlqHeaders.ERROR) != null) {
            return smallerDeadLetter(record, exception);
        }
        String topic = context == null ? record.topic() : context.topic();
        int partition = context == null ? -1 : context.partition();
        long offset = context == null ? -1 : context.offset();
        byte[] key = context == null || context.sourceRawValue() == null ? record.key() : context.sourceRawKey();
        byte[] value = context == null || context.sourceRawValue() == null ? record.value() : context.sourceRawValue();
        String what = value == record.value() ? "; the value is the refused record" : "";
        String reason = "writing to " + record.topic() + " was refused (" + DeadLetters.reason(exception) + "; record of about "
                + RecordLimits.upperBound(record.key(), record.value(), record.headers().toArray()) + " bytes, limit "
                + limits.maxRecordBytes() + ")" + what;
        LOG.warn("{}-{}@{} to {}: {}", topic, partition, offset, route.dlqTopic(), reason);
        DeadLetters.DeadLetter dl = DeadLetters.of(key, value, null, reason, route.entity(), topic, partition, offset, limits);
        route.counters().count(EventCounters.DLQ);
        return Response.resume(List.of(new ProducerRecord<>(route.dlqTopic(), null, record.timestamp(), dl.key(), dl.value(),
                dl.headers())));
    }

    /**
     * A DLQ record was refused in turn (its topic's limit is smaller than {@link RecordLimits} assumes):
     * the same record with a quarter of its value, down to none; a DLQ record with no value left that
     * is still refused is dropped, logged with the source coordinates its headers carry.
     */
    private Response smallerDeadLetter(ProducerRecord<byte[], byte[]> record, Exception exception) {
        byte[] value = record.value();
        if (value == null || value.length == 0) {
            LOG.error("a dead-letter record for {} was refused even without its value, so it is dropped; the record is at {}-{}@{}",
                    record.topic(), text(record, DlqHeaders.SOURCE_TOPIC), text(record, DlqHeaders.SOURCE_PARTITION),
                    text(record, DlqHeaders.SOURCE_OFFSET), exception);
            return Response.resume();
        }
        int keep = value.length < 1024 ? 0 : value.length / 4;
        RecordHeaders headers = new RecordHeaders();
        for (Header h : record.headers()) {
            if (!h.key().equals(DlqHeaders.TRUNCATED) && !h.key().equals(DlqHeaders.ORIGINAL_VALUE_SIZE)) {
                headers.add(h);
            }
        }
        String original = text(record, DlqHeaders.ORIGINAL_VALUE_SIZE);
        String truncated = text(record, DlqHeaders.TRUNCATED);
        headers.add(DlqHeaders.TRUNCATED, (truncated == null ? "value" : truncated).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        headers.add(DlqHeaders.ORIGINAL_VALUE_SIZE, (original == null ? Integer.toString(value.length) : original)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        LOG.warn("a dead-letter record for {} of {} bytes was refused ({}); sending it with {} bytes of its value",
                record.topic(), value.length, exception.toString(), keep);
        return Response.resume(List.of(new ProducerRecord<>(record.topic(), null, record.timestamp(), record.key(),
                java.util.Arrays.copyOf(value, keep), headers)));
    }

    private static boolean refusesTheRecord(Exception e) {
        return e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException
                || e instanceof InvalidRecordException || e instanceof InvalidTimestampException;
    }

    private static String text(ProducerRecord<byte[], byte[]> record, String header) {
        Header h = record.headers().lastHeader(header);
        return h == null || h.value() == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
