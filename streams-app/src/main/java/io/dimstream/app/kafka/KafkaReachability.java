package io.dimstream.app.kafka;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Whether a Kafka cluster answers, and when it does not, why, in words a user can act on: the one
 * check {@code run}, {@code replay} and {@code publish-snapshot} make before they use Kafka
 * ({@link KafkaWait} repeats it). A Kafka client alone only says "Timed out waiting for a node
 * assignment" after a minute, whatever the cause; this check tells the causes apart:
 * <ol>
 *   <li>each bootstrap address is resolved (DNS, within {@link #LOOKUP_TIMEOUT}) and connected to
 *       over TCP (within {@link #CONNECT_TIMEOUT}), all at once: an unknown host, a lookup that does
 *       not end, a refused connection (nothing listens) and no answer at all (a host down, a
 *       firewall dropping packets) each get their own advice;</li>
 *   <li>when an address accepted the connection, an admin client with the {@code kafka.client:}
 *       settings describes the cluster within {@link #KAFKA_TIMEOUT}: no answer there means the
 *       port is not a Kafka listener for these settings (a TLS or SASL listener and a PLAINTEXT
 *       client, or the reverse) or the broker's advertised listeners are out of reach; a Kafka
 *       error (authentication) is quoted.</li>
 * </ol>
 * The whole check takes at most {@link #CONNECT_TIMEOUT} plus {@link #KAFKA_TIMEOUT} when the
 * names resolve at once, {@link #LOOKUP_TIMEOUT} more when they do not.
 */
public final class KafkaReachability {

    /** How long the name lookup of each bootstrap address may take (it has no timeout of its own). */
    public static final Duration LOOKUP_TIMEOUT = Duration.ofSeconds(5);

    /** How long each bootstrap address has to accept a TCP connection. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    /** How long the cluster has to describe itself once an address accepted the connection. */
    public static final Duration KAFKA_TIMEOUT = Duration.ofSeconds(5);

    private KafkaReachability() {
    }

    /** What happened at one bootstrap address. */
    public enum Failure {
        /** The host name does not resolve. */
        UNKNOWN_HOST,
        /** The name lookup did not end within {@link #LOOKUP_TIMEOUT}. */
        LOOKUP_TIMED_OUT,
        /** The TCP connection was refused: nothing listens on that port. */
        REFUSED,
        /** The TCP connection was neither accepted nor refused within {@link #CONNECT_TIMEOUT}. */
        TIMED_OUT,
        /** The TCP connection failed otherwise (no route to the host, network unreachable). */
        NO_ROUTE,
        /** The address is not {@code host:port}. */
        NOT_AN_ADDRESS,
        /** The address accepted the TCP connection, but no Kafka answer came within {@link #KAFKA_TIMEOUT}. */
        NO_KAFKA_ANSWER,
        /** The address accepted the TCP connection and Kafka answered with an error (authentication, ...). */
        KAFKA_ERROR
    }

    /** One bootstrap address and what happened there; {@code detail} is the error's text where it says more. */
    public record Tried(String address, Failure failure, String detail) {

        /** {@code host:port: what happened.} */
        String line() {
            String what = switch (failure) {
                case UNKNOWN_HOST -> "the host name is unknown (DNS)";
                case LOOKUP_TIMED_OUT -> "the name lookup (DNS) did not end within " + seconds(LOOKUP_TIMEOUT);
                case REFUSED -> "TCP connection refused (nothing listens on that port)";
                case TIMED_OUT -> "no answer to the TCP connection within " + seconds(CONNECT_TIMEOUT)
                        + " (the host is down, or a firewall drops the packets)";
                case NO_ROUTE -> "cannot connect: " + detail;
                case NOT_AN_ADDRESS -> "not host:port";
                case NO_KAFKA_ANSWER -> "accepts TCP connections, but no Kafka answer came within " + seconds(KAFKA_TIMEOUT);
                case KAFKA_ERROR -> "accepts TCP connections, but Kafka refused the client: " + detail;
            };
            return address + ": " + what;
        }
    }

    /** The outcome of {@link #probe}. */
    public sealed interface Outcome permits Answered, Unanswered {
        String bootstrapServers();
    }

    /** The cluster described itself: {@code brokers} brokers. */
    public record Answered(String bootstrapServers, int brokers) implements Outcome {
    }

    /**
     * No broker answered.
     *
     * @param source where the addresses come from, for the advice ({@code kafka.bootstrap-servers},
     *               {@code --bootstrap-servers})
     * @param tried  each bootstrap address, in the order given
     */
    public record Unanswered(String bootstrapServers, String source, List<Tried> tried) implements Outcome {

        public Unanswered {
            tried = List.copyOf(tried);
        }

        /** One line: each address and what happened there. */
        public String summary() {
            return tried.stream().map(Tried::line).collect(Collectors.joining("; "));
        }

        /** The whole message: the addresses, what was tried at each, and what to check for each kind of failure. */
        public String message() {
            StringBuilder b = new StringBuilder("no Kafka broker answered at ").append(bootstrapServers).append(" (").append(source)
                    .append("); what was tried:");
            tried.forEach(t -> b.append("\n  ").append(t.line()).append(t.line().endsWith(".") ? "" : "."));
            Set<String> advice = new LinkedHashSet<>();
            tried.forEach(t -> advice.add(advice(t)));
            advice.forEach(a -> b.append("\nCheck: ").append(a));
            return b.toString();
        }

        private String advice(Tried t) {
            return switch (t.failure()) {
                case UNKNOWN_HOST -> "the host name in " + source + ": this machine's DNS does not know it (a name known only "
                        + "inside a Docker network or a Kubernetes cluster does not resolve outside it).";
                case REFUSED -> "that the broker runs, and that " + t.address() + " is one of its listeners (the broker's "
                        + "listeners setting) and the host and port in " + source + ".";
                case LOOKUP_TIMED_OUT -> "that this machine's DNS resolver answers (/etc/resolv.conf, a VPN), and the host "
                        + "name in " + source + ".";
                case TIMED_OUT, NO_ROUTE -> "that the host is up and that this machine may reach " + t.address()
                        + " (a firewall, a security group or a VPN), and the host and port in " + source + ".";
                case NOT_AN_ADDRESS -> source + ": each address is host:port, separated by commas.";
                case NO_KAFKA_ANSWER -> "that " + t.address() + " is a Kafka listener whose security protocol is that of "
                        + "kafka.client (security.protocol, sasl.mechanism, sasl.jaas.config, ssl.*: a TLS or SASL listener does "
                        + "not answer a PLAINTEXT client, nor the reverse), and that the broker's advertised.listeners name "
                        + "addresses this machine can reach (clients connect to those after the first answer).";
                case KAFKA_ERROR -> "the security settings in kafka.client (security.protocol, sasl.mechanism, sasl.jaas.config, "
                        + "ssl.*) against the broker's listener at " + t.address() + ", and the credentials.";
            };
        }
    }

    /**
     * Probes the cluster of {@code clients} as the class comment says, in the time it says.
     *
     * @param source where the addresses come from, named in the advice
     */
    public static Outcome probe(KafkaClients clients, String source) throws InterruptedException {
        return probe(clients, source, InetAddress::getByName);
    }

    /** How a host name is looked up: {@link InetAddress#getByName}, or a test's. */
    interface Lookup {
        InetAddress byName(String host) throws UnknownHostException;
    }

    static Outcome probe(KafkaClients clients, String source, Lookup lookup) throws InterruptedException {
        List<String> addresses = List.of(clients.bootstrapServers().trim().split("\\s*,\\s*"));
        List<Tried> tried = connectAll(addresses, lookup);
        if (tried.stream().allMatch(t -> t.failure() != null)) {
            return new Unanswered(clients.bootstrapServers(), source, tried);
        }
        Described kafka = describeCluster(clients);
        if (kafka.failure() == null) {
            return new Answered(clients.bootstrapServers(), kafka.brokers());
        }
        // the addresses that accepted the connection get the Kafka client's failure
        return new Unanswered(clients.bootstrapServers(), source, tried.stream()
                .map(t -> t.failure() == null ? new Tried(t.address(), kafka.failure(), kafka.detail()) : t).toList());
    }

    /** Each address resolved and connected to at once; a {@link Tried} with a null failure for an accepted connection. */
    private static List<Tried> connectAll(List<String> addresses, Lookup lookup) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(addresses.size(), r -> {
            Thread t = new Thread(r, "dimstream-kafka-probe");
            t.setDaemon(true);
            return t;
        });
        try {
            List<CompletableFuture<Tried>> all = addresses.stream()
                    .map(a -> CompletableFuture.supplyAsync(() -> connect(a, lookup), pool)
                            // the connection has its own timeout, the lookup has none
                            .completeOnTimeout(new Tried(a, Failure.LOOKUP_TIMED_OUT, null),
                                    LOOKUP_TIMEOUT.plus(CONNECT_TIMEOUT).toMillis() + 500, TimeUnit.MILLISECONDS)).toList();
            List<Tried> tried = new ArrayList<>();
            for (CompletableFuture<Tried> f : all) {
                try {
                    tried.add(f.get());
                } catch (ExecutionException e) {
                    throw new IllegalStateException("the TCP probe failed unexpectedly: " + e.getCause(), e.getCause());
                }
            }
            return tried;
        } finally {
            pool.shutdownNow();
        }
    }

    private static Tried connect(String address, Lookup lookup) {
        int colon = address.lastIndexOf(':');
        int port;
        try {
            port = colon < 1 ? -1 : Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65_535) {
            return new Tried(address, Failure.NOT_AN_ADDRESS, null);
        }
        String host = address.substring(0, colon).replaceAll("^\\[|]$", "");
        InetAddress ip;
        try {
            ip = lookup.byName(host);
        } catch (UnknownHostException e) {
            return new Tried(address, Failure.UNKNOWN_HOST, null);
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(ip, port), (int) CONNECT_TIMEOUT.toMillis());
            return new Tried(address, null, null);
        } catch (SocketTimeoutException e) {
            return new Tried(address, Failure.TIMED_OUT, null);
        } catch (ConnectException e) {
            // "Connection refused" (Linux, macOS), "Connection refused: connect" (Windows)
            return e.getMessage() != null && e.getMessage().startsWith("Connection refused") ? new Tried(address, Failure.REFUSED, null)
                    : new Tried(address, Failure.NO_ROUTE, e.getMessage());
        } catch (IOException e) {
            return new Tried(address, Failure.NO_ROUTE, e.getMessage());
        }
    }

    /** What the admin client got: the brokers, or a failure with its detail. */
    private record Described(int brokers, Failure failure, String detail) {
    }

    /** The cluster described by an admin client with the {@code kafka.client:} settings. */
    private static Described describeCluster(KafkaClients clients) throws InterruptedException {
        Map<String, Object> props = clients.properties();
        int ms = (int) KAFKA_TIMEOUT.toMillis();
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
        props.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MS_CONFIG, (long) ms);
        props.put(AdminClientConfig.SOCKET_CONNECTION_SETUP_TIMEOUT_MAX_MS_CONFIG, (long) ms);
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, "dimstream-kafka-probe");
        Admin admin;
        try {
            admin = Admin.create(props);
        } catch (KafkaException e) {
            // settings the client cannot start with (a truststore that is not there, a bad JAAS line)
            return new Described(0, Failure.KAFKA_ERROR, describe(e));
        }
        try {
            // the call ends by itself within timeoutMs
            int brokers = admin.describeCluster(new DescribeClusterOptions().timeoutMs(ms)).nodes().get().size();
            return new Described(brokers, null, null);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TimeoutException) {
                return new Described(0, Failure.NO_KAFKA_ANSWER, null);
            }
            return new Described(0, Failure.KAFKA_ERROR, describe(e.getCause()));
        } finally {
            admin.close(Duration.ZERO);
        }
    }

    /** {@code SaslAuthenticationException: Authentication failed ...}, and the cause's message when it says more. */
    private static String describe(Throwable e) {
        String text = e.getClass().getSimpleName() + ": " + e.getMessage();
        Throwable cause = e.getCause();
        return cause != null && cause.getMessage() != null && !text.contains(cause.getMessage()) ? text + " (" + cause.getMessage() + ")" : text;
    }

    /** {@code 5 s}, {@code 0.5 s}. */
    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
    }
}
