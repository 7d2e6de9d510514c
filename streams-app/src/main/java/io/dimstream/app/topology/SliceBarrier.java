package io.dimstream.app.topology;

import java.nio.ByteBuffer;
import java.util.BitSet;

/**
 * What a classify task remembers of one slice whose end it is waiting for: how many source
 * partitions the slice was written to, and which of them have delivered their end-of-slice marker.
 * Serialized as {@code [4: partitions][bitset bytes]}.
 */
record SliceBarrier(int partitions, BitSet seen) {

    static SliceBarrier empty(int partitions) {
        return new SliceBarrier(partitions, new BitSet(partitions));
    }

    SliceBarrier with(int partition) {
        BitSet s = (BitSet) seen.clone();
        s.set(partition);
        return new SliceBarrier(partitions, s);
    }

    boolean complete() {
        return seen.cardinality() == partitions;
    }

    byte[] toBytes() {
        byte[] bits = seen.toByteArray();
        return ByteBuffer.allocate(4 + bits.length).putInt(partitions).put(bits).array();
    }

    static SliceBarrier fromBytes(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int n = b.getInt();
        byte[] bits = new byte[b.remaining()];
        b.get(bits);
        return new SliceBarrier(n, BitSet.valueOf(bits));
    }
}
