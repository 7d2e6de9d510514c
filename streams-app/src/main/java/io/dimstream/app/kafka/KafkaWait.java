package io.dimstream.app.kafka;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.function.Consumer;

/**
 * How long a command waits for Kafka to answer before it gives up: {@link KafkaReachability#probe}
 * again every {@link #RETRY_EVERY} until the cluster answers or {@code limit} has passed since the
 * first attempt ({@code null}: forever). The first failure is reported whole (what was tried, what
 * to check, what happens next), each later attempt as one line, and the answer after a failure too.
 *
 * @param limit  how long to keep trying after the first attempt; zero: one attempt; null: forever
 * @param option how the user set it (e.g. {@code --kafka-wait}), named in the lines
 */
public record KafkaWait(Duration limit, String option) {

    /** The pause between two attempts (an attempt that timed out took up to 10 s itself). */
    public static final Duration RETRY_EVERY = Duration.ofSeconds(5);

    /** The word for no limit. */
    public static final String FOREVER = "forever";

    public KafkaWait {
        if (limit != null && limit.isNegative()) {
            throw new IllegalArgumentException(option + ": must not be negative, got " + limit);
        }
    }

    /**
     * {@code forever} or an ISO-8601 duration ({@code PT0S}, {@code PT30S}, {@code PT5M}).
     *
     * @throws IllegalArgumentException naming {@code option} and what it takes
     */
    public static KafkaWait parse(String option, String text) {
        if (FOREVER.equals(text)) {
            return new KafkaWait(null, option);
        }
        try {
            return new KafkaWait(Duration.parse(text), option);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(option + ": \"" + text + "\" is neither " + FOREVER
                    + " nor an ISO-8601 duration (PT0S, PT30S, PT5M)", e);
        }
    }

    /** {@code forever} or the ISO-8601 duration, as the user writes it. */
    public String text() {
        return limit == null ? FOREVER : limit.toString();
    }

    /** The cluster did not answer within the wait. */
    public static final class GaveUp extends Exception {
        private final transient KafkaReachability.Unanswered last;
        private final int attempts;

        GaveUp(KafkaReachability.Unanswered last, int attempts) {
            super(last.message());
            this.last = last;
            this.attempts = attempts;
        }

        public KafkaReachability.Unanswered last() {
            return last;
        }

        public int attempts() {
            return attempts;
        }
    }

    /**
     * Probes until the cluster answers, reporting to {@code report} (one call per message, no
     * trailing newline): nothing when the first attempt is answered.
     *
     * @param source where the addresses come from ({@code kafka.bootstrap-servers}), named in the advice
     * @throws GaveUp when {@link #limit} passed without an answer
     */
    public KafkaReachability.Answered await(KafkaClients clients, String source, Consumer<String> report)
            throws InterruptedException, GaveUp {
        return await(clients, source, report, RETRY_EVERY);
    }

    KafkaReachability.Answered await(KafkaClients clients, String source, Consumer<String> report, Duration every)
            throws InterruptedException, GaveUp {
        long start = System.nanoTime();
        int attempt = 1;
        KafkaReachability.Outcome outcome = KafkaReachability.probe(clients, source);
        if (outcome instanceof KafkaReachability.Answered answered) {
            return answered;
        }
        KafkaReachability.Unanswered first = (KafkaReachability.Unanswered) outcome;
        report.accept("kafka: " + first.message() + "\n" + next(every));
        KafkaReachability.Unanswered last = first;
        while (true) {
            long left = limit == null ? Long.MAX_VALUE : limit.toNanos() - (System.nanoTime() - start);
            if (left <= 0) {
                throw new GaveUp(last, attempt);
            }
            Thread.sleep(Math.min(every.toMillis(), Math.max(1, left / 1_000_000)));
            attempt++;
            outcome = KafkaReachability.probe(clients, source);
            if (outcome instanceof KafkaReachability.Answered answered) {
                report.accept("kafka: attempt " + attempt + ": " + answered.bootstrapServers() + " answered ("
                        + answered.brokers() + (answered.brokers() == 1 ? " broker)" : " brokers)"));
                return answered;
            }
            last = (KafkaReachability.Unanswered) outcome;
            report.accept("kafka: attempt " + attempt + ": no answer: " + last.summary());
        }
    }

    private String next(Duration every) {
        String each = KafkaReachability.seconds(every);
        if (limit == null) {
            return "Trying again every " + each + " until it answers (" + option + " " + FOREVER + "; Ctrl-C stops).";
        }
        if (limit.isZero()) {
            return "Not trying again (" + option + " " + limit + ").";
        }
        return "Trying again every " + each + " for up to " + limit + " (" + option + " " + limit + ").";
    }
}
