package io.dimstream.app.topology;

import java.util.Map;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBufferManager;

/**
 * Bounds the off-heap memory of every RocksDB store of the process: one block cache shared by all
 * stores ({@value #TOTAL_OFF_HEAP_BYTES} bytes), which also holds the index and filter blocks and is
 * charged for the memtables ({@value #TOTAL_MEMTABLE_BYTES} bytes of it, through a shared
 * {@link WriteBufferManager}). Without it each store (one per entity and partition) takes its own
 * block cache, memtables and unbounded index and filter blocks, so the service's resident memory
 * grows with the number of partitions and the key count, outside the JVM heap. This is the
 * bounded-memory setter of the Kafka Streams memory-management guide.
 *
 * <p>Set by default ({@code rocksdb.config.setter}); {@code kafka.streams: {rocksdb.config.setter:
 * ...}} replaces it.
 */
public final class BoundedRocksDbConfig implements RocksDBConfigSetter {

    static final long TOTAL_OFF_HEAP_BYTES = 64L * 1024 * 1024;
    static final long TOTAL_MEMTABLE_BYTES = 16L * 1024 * 1024;
    private static final double INDEX_FILTER_BLOCK_RATIO = 0.1;
    private static final long MEMTABLE_BYTES = 4L * 1024 * 1024;
    private static final int MEMTABLES = 2;

    /**
     * Shared by every store of the process, on purpose: that is what bounds the total. A holder,
     * made on first use: Kafka Streams loads this class while parsing its config, before RocksDB's
     * native library is loaded.
     */
    private static final class Shared {
        static {
            RocksDB.loadLibrary();
        }

        static final Cache CACHE = new LRUCache(TOTAL_OFF_HEAP_BYTES, -1, false, INDEX_FILTER_BLOCK_RATIO);
        static final WriteBufferManager WRITE_BUFFERS = new WriteBufferManager(TOTAL_MEMTABLE_BYTES, CACHE);
    }

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(Shared.CACHE);
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        options.setWriteBufferManager(Shared.WRITE_BUFFERS);
        options.setWriteBufferSize(MEMTABLE_BYTES);
        options.setMaxWriteBufferNumber(MEMTABLES);
        options.setTableFormatConfig(table);
    }

    @Override
    public void close(String storeName, Options options) {
        // the cache and the write-buffer manager are shared by every store: never closed here
    }
}
