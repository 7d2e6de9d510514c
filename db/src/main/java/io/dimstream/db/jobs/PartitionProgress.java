package io.dimstream.db.jobs;

/** One partition of a replay job: the range taken at job start and the next offset to read. */
public record PartitionProgress(int partition, long startOffset, long endOffset, long position) {

    public PartitionProgress {
        if (startOffset < 0 || startOffset > endOffset || position < startOffset || position > endOffset) {
            throw new IllegalArgumentException("partition " + partition + ": need 0 <= start <= position <= end, got start "
                    + startOffset + ", position " + position + ", end " + endOffset);
        }
    }

    public boolean done() {
        return position >= endOffset;
    }
}
