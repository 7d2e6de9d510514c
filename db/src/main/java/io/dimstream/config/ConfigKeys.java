package io.dimstream.config;

import static io.dimstream.config.ConfigKey.key;

import com.fasterxml.jackson.core.type.TypeReference;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The table of the config file's keys: each declared once here, with its type, default,
 * validation and description. {@link ConfigReader} reads by it, {@link DimstreamConfig#describeMasked()}
 * prints by it, and {@code docs/config-reference.md} is generated from it ({@link ConfigReference}).
 * The entities' keys ({@code entities[]}) are still read by {@link ConfigReader}'s entity code;
 * {@link #ENTITY} lists them for the reference.
 *
 * <p>To add a key: declare it here in its section's list, read it where its section's record is
 * built, and regenerate the reference ({@code ConfigReferenceTest} says how).
 */
public final class ConfigKeys {

    private ConfigKeys() {
    }

    // ---- kafka:

    public static final ConfigKey<String> KAFKA_BOOTSTRAP_SERVERS = key("kafka", "bootstrap-servers")
            .doc("`host:port,...` of the Kafka cluster; `embedded` starts a broker inside the process. Required when `kafka:` is given.")
            .text("");
    public static final ConfigKey<Map<String, String>> KAFKA_CLIENT = key("kafka", "client")
            .doc("Settings every Kafka client of dimstream gets (Kafka Streams, the sink, topic creation, replay, DLQ mirror, "
                    + "re-drive, publish-snapshot): only settings common to consumers, producers and admin clients "
                    + "(`security.protocol`, `sasl.*`, `ssl.*`, `client.dns.lookup`, `request.timeout.ms`, ...); others are "
                    + "refused naming the field. Secrets are masked wherever the config is printed.")
            .of("mapping of Kafka property to value", ConfigKey.PROPERTIES, Map.of(), "none",
                    (path, raw, problems) -> properties(path, "a Kafka client property", raw, problems), ConfigKeys::printProperties);
    public static final ConfigKey<Map<String, String>> KAFKA_STREAMS = key("kafka", "streams")
            .doc("Kafka Streams settings as Kafka names them, applied over dimstream's defaults and after `kafka.client` "
                    + "(`commit.interval.ms` default 1000, `statestore.cache.max.bytes` default 0, `num.stream.threads`, "
                    + "`producer.linger.ms`, ...); unknown names are refused; `processing.guarantee`, serdes, `application.id`, "
                    + "`state.dir` are dimstream's.")
            .of("mapping of Kafka Streams property to value", ConfigKey.PROPERTIES, Map.of(), "none",
                    (path, raw, problems) -> properties(path, "a Kafka Streams property", raw, problems), ConfigKeys::printProperties);

    public static final ConfigSection KAFKA = new ConfigSection("kafka",
            "Where the source topics live. Optional in the file; the Kafka verbs (`run`, `replay`, `publish-snapshot`) need it.",
            List.of(KAFKA_BOOTSTRAP_SERVERS, KAFKA_CLIENT, KAFKA_STREAMS), List.of());

    // ---- postgres:

    public static final ConfigKey<String> POSTGRES_URL = key("postgres", "url")
            .doc("A `jdbc:postgresql:` URL, or `embedded` to start PostgreSQL inside the process. Required.")
            .text("");
    public static final ConfigKey<String> POSTGRES_USER = key("postgres", "user")
            .doc("The database user; may be left out when the URL carries it (or for `embedded`).")
            .text("");
    public static final ConfigKey<String> POSTGRES_PASSWORD = key("postgres", "password").secret()
            .doc("The user's password: `${VAR}` reads the environment, a literal works too; a placeholder such as "
                    + "`change-me` is refused. Never printed.")
            .text("");
    public static final ConfigKey<Integer> POSTGRES_POOL_SIZE = key("postgres", "pool-size")
            .doc("Connections of the pool (HikariCP's own default). `run` needs at least `sink.parallelism` + 3.")
            .atLeast(1, PostgresConfig.DEFAULT_POOL_SIZE);

    public static final ConfigSection POSTGRES = new ConfigSection("postgres",
            "The database the history tables live in. Required.",
            List.of(POSTGRES_URL, POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_POOL_SIZE), List.of());

    // ---- load:

    public static final ConfigKey<Integer> LOAD_BATCH_SIZE = key("load", "batch-size")
            .doc("Events per writer transaction of `dimstream load` (its `--batch-size` overrides it).")
            .atLeast(1, 10_000);

    public static final ConfigSection LOAD = new ConfigSection("load",
            "The `load` verb (files into the history tables, without Kafka).", List.of(LOAD_BATCH_SIZE), List.of());

    /** The top-level {@code batch-size} of older configs: {@link #LOAD_BATCH_SIZE}. */
    public static final ConfigKey<Integer> BATCH_SIZE = LOAD_BATCH_SIZE.deprecatedAlias("", "batch-size");

    // ---- sink:

    public static final ConfigKey<String> SINK_GROUP_ID = key("sink", "group-id")
            .doc("The sink's consumer group, also the key of its offsets in `dimstream.sink_offsets`; instances sharing it "
                    + "share the partitions.")
            .of("text", ConfigKey.STRING, null, "`<application-id>-sink`", ConfigKeys::nonEmpty, s -> s);
    public static final ConfigKey<Integer> SINK_BATCH_SIZE = key("sink", "batch-size")
            .doc("Events per PostgreSQL transaction, at most. `sink.batch-size` times `sink.parallelism` must fit one poll "
                    + "(2147483647).")
            .atLeast(1, 5000);
    public static final ConfigKey<Duration> SINK_BATCH_MAX_WAIT = key("sink", "batch-max-wait")
            .doc("How long a partition's first buffered record waits for its batch to fill before the batch is applied anyway.")
            .positiveDuration(Duration.ofMillis(200), "PT0.2S");
    public static final ConfigKey<Integer> SINK_PARALLELISM = key("sink", "parallelism")
            .doc("Connections applying the due batches of different partitions at once (each its own transaction); "
                    + "`run` refuses it when `postgres.pool-size` < parallelism + 3 (the service's other work).")
            .atLeast(1, 2);
    public static final ConfigKey<SinkConfig.OffsetOutOfRange> SINK_ON_OFFSET_OUT_OF_RANGE = key("sink", "on-offset-out-of-range")
            .doc("A partition whose stored offset left the changes topic's log (retention deleted changes never applied, or "
                    + "the topic was recreated): `stop` (the partition stops, health says so) or `skip` (moves to the log's "
                    + "start; the gap is recorded in `dimstream.sink_gaps` and shown by the admin; replay the source for it).")
            .of("`stop` or `skip`", ConfigKey.STRING, SinkConfig.OffsetOutOfRange.STOP, "`stop`", (path, raw, problems) -> {
                String s = (String) raw;
                switch (s.trim().toLowerCase(Locale.ROOT)) {
                    case "stop":
                        return SinkConfig.OffsetOutOfRange.STOP;
                    case "skip":
                        return SinkConfig.OffsetOutOfRange.SKIP;
                    default:
                        problems.add(path + ": \"" + s + "\" is neither stop nor skip");
                        return null;
                }
            }, v -> v.name().toLowerCase(Locale.ROOT));
    public static final ConfigKey<Duration> SINK_STUCK_AFTER = key("sink", "stuck-after")
            .doc("A partition with records left and no committed batch this long is \"stuck\": `/health/ready` answers 503 "
                    + "naming it, `dimstream_sink_partitions_stuck` counts it.")
            .positiveDuration(Duration.ofMinutes(5), "PT5M");

    public static final ConfigSection SINK = new ConfigSection("sink",
            "The streaming sink (changes topics into PostgreSQL): its batching and what it does when a partition cannot go on. "
                    + "Optional.",
            List.of(SINK_GROUP_ID, SINK_BATCH_SIZE, SINK_BATCH_MAX_WAIT, SINK_PARALLELISM, SINK_ON_OFFSET_OUT_OF_RANGE,
                    SINK_STUCK_AFTER), List.of());

    // ---- admin:

    public static final ConfigKey<String> ADMIN_HOST = key("admin", "host")
            .doc("Address the web admin listens on; `0.0.0.0` listens on every interface.")
            .nonEmptyText(AdminConfig.DEFAULT_HOST, true);
    public static final ConfigKey<Integer> ADMIN_PORT = key("admin", "port")
            .doc("Port of the web admin.")
            .between(1, 65535, AdminConfig.DEFAULT_PORT);
    public static final ConfigKey<Duration> ADMIN_SESSION_TIMEOUT = key("admin", "session-timeout")
            .doc("Idle time before a login expires (htmx polls do not count as use).")
            .positiveDuration(AdminConfig.DEFAULT_SESSION_TIMEOUT, "PT8H");
    public static final ConfigKey<Duration> ADMIN_SESSION_LIFETIME = key("admin", "session-lifetime")
            .doc("A login ends this long after it began, however busy.")
            .positiveDuration(AdminConfig.DEFAULT_SESSION_LIFETIME, "PT12H");
    public static final ConfigKey<Boolean> ADMIN_SECURE_COOKIE = key("admin", "secure-cookie")
            .doc("`true`: cookies get `Secure` and responses HSTS (max-age one year), so serve the admin over HTTPS; `false` "
                    + "only for plain http on a loopback address (`dimstream demo`, the compose stack).")
            .bool(AdminConfig.DEFAULT_SECURE_COOKIE);
    public static final ConfigKey<List<AddressRange>> ADMIN_TRUSTED_PROXIES = key("admin", "trusted-proxies")
            .doc("Reverse proxies (IP literals or CIDR blocks, never host names) whose `X-Forwarded-For` is believed for "
                    + "login throttling; none: the connection's address is the client.")
            .of("list of IP addresses or CIDR blocks", ConfigKey.STRING_LIST, List.of(), "none", ConfigKeys::addressRanges,
                    l -> l.stream().map(AddressRange::toString).toList());
    public static final ConfigKey<Duration> ADMIN_STATEMENT_TIMEOUT = key("admin", "statement-timeout")
            .doc("Longest SQL statement of a page, API call or CSV export (PostgreSQL cancels it: 503); 1 ms to 24 h.")
            .of("ISO-8601 duration", ConfigKey.STRING, AdminConfig.DEFAULT_STATEMENT_TIMEOUT,
                    DimstreamConfig.isoDuration(AdminConfig.DEFAULT_STATEMENT_TIMEOUT), (path, raw, problems) -> {
                        Duration d = ConfigKey.positiveDuration(path, (String) raw, "PT30S", problems);
                        if (d != null && (d.toMillis() < 1 || d.compareTo(AdminSection.MAX_STATEMENT_TIMEOUT) > 0)) {
                            problems.add(path + ": must be between 1 ms and " + AdminSection.MAX_STATEMENT_TIMEOUT + ", got " + raw);
                            return null;
                        }
                        return d;
                    }, Duration::toString);
    public static final ConfigKey<Integer> ADMIN_CSV_MAX_MIB = key("admin", "csv-max-mib")
            .doc("Largest CSV export in MiB, spooled to a temporary file first.")
            .between(1, AdminSection.MAX_CSV_MIB, AdminConfig.DEFAULT_CSV_MAX_MIB);
    public static final ConfigKey<List<ConfigReader.RawUser>> ADMIN_USERS = key("admin", "users")
            .doc("Logins: `name`, `role` (`admin` may change state, `viewer` reads only) and either `password-hash` (bcrypt, "
                    + "e.g. `htpasswd -bnBC 10 \"\" PASSWORD | tr -d ':'`) or `password: ${VAR}` (a plain password, only from the "
                    + "environment, 12 characters to 72 bytes). At least one user or one API token is required. Masked when printed.")
            .of("list of users", new TypeReference<List<ConfigReader.RawUser>>() { }, List.of(), "none",
                    (path, raw, problems) -> cast(raw), l -> l);
    public static final ConfigKey<List<ConfigReader.RawToken>> ADMIN_API_TOKENS = key("admin", "api-tokens")
            .doc("Bearer tokens of the JSON API: `name`, `role`, `token: ${VAR}` (only from the environment, at least 24 "
                    + "characters). Masked when printed.")
            .of("list of API tokens", new TypeReference<List<ConfigReader.RawToken>>() { }, List.of(), "none",
                    (path, raw, problems) -> cast(raw), l -> l);

    public static final ConfigSection ADMIN = new ConfigSection("admin",
            "The web admin: its address, sessions, users and API tokens. Required by `dimstream admin`, ignored by the other verbs.",
            List.of(ADMIN_HOST, ADMIN_PORT, ADMIN_SESSION_TIMEOUT, ADMIN_SESSION_LIFETIME, ADMIN_SECURE_COOKIE, ADMIN_TRUSTED_PROXIES,
                    ADMIN_STATEMENT_TIMEOUT, ADMIN_CSV_MAX_MIB, ADMIN_USERS, ADMIN_API_TOKENS), List.of());

    // ---- entities:

    public static final ConfigKey<List<ConfigReader.RawEntity>> ENTITIES = key("", "entities")
            .doc("The entities, each a source topic and its history table: see the `entities[]` section. At least one is required.")
            .of("list of entities", new TypeReference<List<ConfigReader.RawEntity>>() { }, null, "",
                    (path, raw, problems) -> cast(raw), l -> l);

    /** The top level: the sections, {@code entities} and the deprecated {@code batch-size}. */
    public static final ConfigSection ROOT = new ConfigSection("",
            "One YAML file; `${VAR}` reads the environment (an unset variable is an error naming it, `$${` is a literal `${`); "
                    + "a wrong config is refused at startup with a message naming every wrong field by its path.",
            List.of(ENTITIES, BATCH_SIZE), List.of(KAFKA, POSTGRES, LOAD, SINK, ADMIN));

    // ---- readers shared by keys

    private static String nonEmpty(String path, Object raw, List<String> problems) {
        String s = (String) raw;
        if (s.isBlank()) {
            problems.add(path + ": must not be empty");
        }
        return s;
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object raw) {
        return (T) raw;
    }

    /** {@code kafka.streams:} and {@code kafka.client:}: scalar values only; whether Kafka knows a name is checked where Kafka is. */
    private static Map<String, String> properties(String path, String what, Object raw, List<String> problems) {
        Map<String, String> m = new LinkedHashMap<>();
        ((Map<?, ?>) raw).forEach((k, v) -> {
            if (v == null || v instanceof Map || v instanceof List) {
                problems.add(path + "." + k + ": expected a single value (" + what + "), got "
                        + (v == null ? "nothing" : v instanceof Map ? "a mapping" : "a list"));
            } else {
                m.put(String.valueOf(k), String.valueOf(v));
            }
        });
        return m;
    }

    private static Object printProperties(Map<String, String> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        m.forEach((name, value) -> out.put(name, Secrets.maskValue(name, value)));
        return out;
    }

    /** {@code admin.trusted-proxies}: IP literals or CIDR blocks, never host names. */
    private static List<AddressRange> addressRanges(String path, Object raw, List<String> problems) {
        List<?> list = (List<?>) raw;
        List<AddressRange> out = new java.util.ArrayList<>();
        boolean ok = true;
        for (int i = 0; i < list.size(); i++) {
            String s = (String) list.get(i);
            java.util.Optional<AddressRange> r = AddressRange.parse(s);
            if (r.isEmpty()) {
                problems.add(path + "[" + i + "]: \"" + s + "\" is not an IP address or CIDR block (e.g. 10.0.0.5, 10.1.0.0/16, fd00::/8)");
                ok = false;
            } else {
                out.add(r.get());
            }
        }
        return ok ? out : null;
    }
}
