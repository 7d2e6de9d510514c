package io.dimstream.cli;

import io.dimstream.app.kafka.KafkaClients;
import io.dimstream.app.kafka.KafkaReachability;
import io.dimstream.app.kafka.KafkaWait;
import io.dimstream.db.secrets.Secrets;
import java.io.PrintWriter;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.TypeConversionException;

/**
 * What {@code run}, {@code replay} and {@code publish-snapshot} do before they use Kafka: wait for
 * it as {@value #OPTION} says ({@link KafkaWait}, {@link KafkaReachability}), its lines on stderr;
 * when it gives up, a failure with {@link CliFailure#KAFKA_UNREACHABLE}.
 */
final class KafkaCheck {

    /** The option that sets the wait, in each of the three commands. */
    static final String OPTION = "--kafka-wait";

    private KafkaCheck() {
    }

    /** {@value #OPTION}'s value: {@code forever} or an ISO-8601 duration. */
    static final class WaitConverter implements ITypeConverter<KafkaWait> {
        @Override
        public KafkaWait convert(String value) {
            try {
                return KafkaWait.parse(OPTION, value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /**
     * Returns once Kafka answers; prints the first failure whole and a line per later attempt.
     *
     * @param source      where the addresses come from ({@code kafka.bootstrap-servers} or {@code --bootstrap-servers})
     * @param nothingDone what the command did not do, for the last line ({@code nothing was published})
     * @throws CliFailure with {@link CliFailure#KAFKA_UNREACHABLE} when the wait ran out
     */
    static void await(CommandSpec spec, KafkaClients clients, String source, KafkaWait wait, String nothingDone) {
        PrintWriter err = spec.commandLine().getErr();
        try {
            wait.await(clients, source, line -> {
                err.println(Secrets.mask(line));
                err.flush();
            });
        } catch (KafkaWait.GaveUp g) {
            throw new CliFailure(CliFailure.KAFKA_UNREACHABLE, "Kafka at " + clients.bootstrapServers() + " did not answer ("
                    + g.attempts() + (g.attempts() == 1 ? " attempt, " : " attempts, ") + OPTION + " " + wait.text() + "); "
                    + nothingDone, g);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.FAILED, "interrupted while waiting for Kafka at " + clients.bootstrapServers(), e);
        }
    }
}
