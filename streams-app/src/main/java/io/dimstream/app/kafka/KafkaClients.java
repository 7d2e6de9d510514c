package io.dimstream.app.kafka;

import io.dimstream.config.model.KafkaConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * Where and how every Kafka client of dimstream connects: the bootstrap servers and the
 * {@code kafka.client:} settings (security and other settings common to consumers, producers and
 * admin clients). Each place that makes a client starts from {@link #properties()} and adds its
 * own settings, so a SASL/SSL cluster needs its settings written once.
 *
 * @param settings {@code kafka.client:}, checked by {@link #problems}
 */
public record KafkaClients(String bootstrapServers, Map<String, String> settings) {

    /**
     * The group heartbeat of every consumer in a group (the sink's, the stream threads'): a member
     * learns of a rebalance (an instance left or joined) at its next heartbeat, so Kafka's default
     * of 3 s added up to 3 s to every restart's pause; one heartbeat a second costs the
     * coordinator nothing worth counting (docs/operations.md, "Rolling restarts").
     */
    public static final int GROUP_HEARTBEAT_MS = 1000;

    public KafkaClients {
        settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    }

    /** Plain connections to these servers, no extra settings. */
    public static KafkaClients of(String bootstrapServers) {
        return new KafkaClients(bootstrapServers, Map.of());
    }

    /** The config's {@code kafka.client:} settings, connecting to {@code bootstrapServers} (the embedded broker's, or the config's). */
    public static KafkaClients of(String bootstrapServers, KafkaConfig config) {
        return new KafkaClients(bootstrapServers, config.client());
    }

    /** A fresh, mutable map: the settings, then {@code bootstrap.servers}; the caller adds its own. */
    public Map<String, Object> properties() {
        Map<String, Object> p = new HashMap<>(settings);
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return p;
    }

    /**
     * Checks {@code kafka.client:} names: each must be a setting that consumers, producers and admin
     * clients all know (security.protocol, sasl.*, ssl.*, client.dns.lookup, ...), not
     * {@code bootstrap.servers} (that is {@code kafka.bootstrap-servers}). A consumer- or
     * producer-only setting of Kafka Streams' clients belongs in {@code kafka.streams:} with its prefix.
     *
     * @return one problem per bad name, naming the field; empty when all are fine
     */
    public static List<String> problems(Map<String, String> settings) {
        Set<String> consumer = ConsumerConfig.configNames();
        Set<String> producer = ProducerConfig.configNames();
        Set<String> admin = AdminClientConfig.configNames();
        List<String> problems = new ArrayList<>();
        settings.keySet().forEach(name -> {
            if (CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG.equals(name)) {
                problems.add("kafka.client." + name + ": set kafka.bootstrap-servers instead");
            } else if (!(consumer.contains(name) && producer.contains(name) && admin.contains(name))) {
                problems.add("kafka.client." + name + ": not a setting common to Kafka consumers, producers and admin clients "
                        + "(e.g. security.protocol, sasl.mechanism, sasl.jaas.config, ssl.truststore.location); "
                        + "consumer- or producer-only settings of Kafka Streams go in kafka.streams: with their prefix");
            }
        });
        return problems;
    }
}
