package io.dimstream.app.sink;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the transactions of one wave at once: the first on the calling thread (the sink's), the
 * others on helper threads {@code dimstream-sink-apply-N} (made on first use, as many as the
 * parallelism needs), and waits for every one of them before returning, so the sink never goes on
 * while a transaction of its is in flight. Each outcome is read the same way, success or failure.
 */
final class ApplyExecutor implements AutoCloseable {

    /** A transaction's outcome, or what failed it. */
    record Done<T>(T outcome, Throwable failure) {
        boolean ok() {
            return failure == null;
        }
    }

    private final int threads;
    private ExecutorService pool;

    /** @param parallelism the most transactions of one wave */
    ApplyExecutor(int parallelism) {
        this.threads = parallelism - 1;
    }

    <T> List<Done<T>> runAll(List<Callable<T>> tasks) {
        List<FutureTask<T>> futures = new ArrayList<>(tasks.size());
        for (Callable<T> t : tasks) {
            futures.add(new FutureTask<>(t));
        }
        for (FutureTask<T> f : futures.subList(1, futures.size())) {
            pool().execute(f);
        }
        futures.get(0).run();
        List<Done<T>> done = new ArrayList<>(futures.size());
        for (FutureTask<T> f : futures) {
            done.add(await(f));
        }
        return done;
    }

    /** Waits through interrupts (the transaction runs on either way), restoring the flag after. */
    private static <T> Done<T> await(Future<T> f) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return new Done<>(f.get(), null);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    return new Done<>(null, e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private ExecutorService pool() {
        if (pool == null) {
            if (threads < 1) {
                throw new IllegalStateException("a wave of more than one transaction with parallelism 1");
            }
            AtomicInteger no = new AtomicInteger();
            pool = Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, "dimstream-sink-apply-" + no.incrementAndGet());
                t.setDaemon(true);
                return t;
            });
        }
        return pool;
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdown();
        }
    }
}
