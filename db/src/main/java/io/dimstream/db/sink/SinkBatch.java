package io.dimstream.db.sink;

import io.dimstream.db.write.ApplyResult;
import java.util.Objects;

/**
 * What the streaming sink records of one committed batch ({@code dimstream.sink_batches}).
 *
 * @param firstOffset the offset of the batch's first record
 * @param nextOffset  the partition's stored next offset after the batch
 * @param events      records in the batch (applied, duplicates, quarantined and rejected together)
 * @param result      what the writer did with them
 * @param rejected    records set aside in {@code dimstream.sink_rejects} (undecodable or refused)
 * @param applyMillis time from the transaction's start to just before its commit
 * @param lag         records left in the partition after this batch; null when the consumer did not know
 */
public record SinkBatch(String consumerGroup, String entity, String topic, int partition, long firstOffset, long nextOffset,
                        int events, ApplyResult result, int rejected, long applyMillis, Long lag) {

    public SinkBatch {
        Objects.requireNonNull(consumerGroup, "consumerGroup");
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(result, "result");
    }
}
