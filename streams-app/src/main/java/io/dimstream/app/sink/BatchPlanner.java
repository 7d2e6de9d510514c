package io.dimstream.app.sink;

import io.dimstream.db.entity.EntitySpec;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides which due batches go to PostgreSQL together, with no consumer and no SQL.
 *
 * <p>A <b>group</b> is one transaction: the first batches of one or more partitions of ONE entity,
 * applied by one writer call with each partition's offset fenced and advanced beside it (a key
 * lives on one partition, so their keys are disjoint). A <b>wave</b> is up to
 * {@code parallelism} groups applied at once, each on a connection of its own.
 *
 * <p>Per entity, the due partitions whose batch holds no control record are spread over
 * {@code min(parallelism, n)} groups balanced by records (the biggest batch first, each to the
 * group with the fewest records so far): the writer's cost per call is mostly fixed, and one
 * PostgreSQL backend is the limit of one transaction. A batch holding an end-of-slice marker goes
 * alone, in a wave of its own, after the others: a marker judges a slice against everything
 * applied before it. So does the batch of a partition retrying after a failure, so that whatever
 * fails it cannot fail the others' transactions.
 */
final class BatchPlanner {

    private BatchPlanner() {
    }

    /** @return the waves, in order; each wave's groups, each group's partitions */
    static List<List<List<PartitionBuffer>>> plan(List<PartitionBuffer> due, int batchSize, int parallelism) {
        Map<EntitySpec, List<PartitionBuffer>> mergeable = new LinkedHashMap<>();
        List<PartitionBuffer> alone = new ArrayList<>();
        for (PartitionBuffer b : due) {
            // a partition retrying after a failure goes alone too: its failure must not hold back the others
            if (b.hasControlRecord(batchSize) || b.failure != null) {
                alone.add(b);
            } else {
                mergeable.computeIfAbsent(b.entity, e -> new ArrayList<>()).add(b);
            }
        }
        List<List<PartitionBuffer>> groups = new ArrayList<>();
        for (List<PartitionBuffer> same : mergeable.values()) {
            groups.addAll(balance(same, batchSize, parallelism));
        }
        List<List<List<PartitionBuffer>>> waves = new ArrayList<>();
        for (int i = 0; i < groups.size(); i += parallelism) {
            waves.add(List.copyOf(groups.subList(i, Math.min(groups.size(), i + parallelism))));
        }
        for (PartitionBuffer b : alone) {
            waves.add(List.of(List.of(b)));
        }
        return waves;
    }

    private static List<List<PartitionBuffer>> balance(List<PartitionBuffer> same, int batchSize, int parallelism) {
        int n = Math.min(parallelism, same.size());
        List<List<PartitionBuffer>> parts = new ArrayList<>(n);
        int[] size = new int[n];
        for (int i = 0; i < n; i++) {
            parts.add(new ArrayList<>());
        }
        List<PartitionBuffer> bySize = new ArrayList<>(same);
        bySize.sort(Comparator.comparingInt((PartitionBuffer b) -> b.firstBatch(batchSize).size()).reversed());
        for (PartitionBuffer b : bySize) {
            int least = 0;
            for (int i = 1; i < n; i++) {
                if (size[i] < size[least]) {
                    least = i;
                }
            }
            parts.get(least).add(b);
            // at least 1: a batch with no records (only the position moved, past transaction markers)
            // still takes its place, so no group is left empty
            size[least] += Math.max(1, b.firstBatch(batchSize).size());
        }
        return parts;
    }
}
