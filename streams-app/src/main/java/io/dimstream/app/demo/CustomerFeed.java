package io.dimstream.app.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.db.entity.ColumnType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * A realistic customer change feed for the demo, as native JSON records keyed by customer id:
 * creates, changes of tracked columns, type-1-only changes (last_login), deletes, resurrections,
 * exact duplicates (a producer retry), late events (an upstream system catching up) and a few
 * malformed records (which the pipeline must send to the DLQ). Deterministic for a seed.
 *
 * <p>Event times advance from {@code start} by a few minutes per event, so the whole feed reads
 * like days of CRM activity compressed.
 *
 * <p>A schema change, when asked for ({@link #CustomerFeed(long, int, Instant, int)}): from a given
 * event on, every upsert also carries a field the source did not send before,
 * {@value #NEW_FIELD}: a customer's preferred contact channel, or an explicit NULL for the customers
 * who have none. A customer's value is drawn once, at its first upsert that carries the field, and
 * kept from then on (through deletes and resurrections), so it never goes from a value back to NULL.
 * It is drawn from a random source of its own: the rest of the feed is the same record for record as
 * without the schema change.
 */
public final class CustomerFeed {

    private static final String[] FIRST = {"Alice", "Bob", "Chen", "Dana", "Emeka", "Farah", "Goran", "Hana", "Ivan", "Jun",
        "Kofi", "Lena", "Mateo", "Nora", "Omar", "Priya"};
    private static final String[] LAST = {"Martin", "Jones", "Li", "Cohen", "Okafor", "Haddad", "Petrov", "Sato", "Silva", "Novak"};
    private static final String[][] PLACES = {{"FR", "Paris"}, {"FR", "Lyon"}, {"GB", "London"}, {"GB", "Leeds"}, {"DE", "Berlin"},
        {"DE", "Hamburg"}, {"US", "Austin"}, {"US", "Boston"}, {"JP", "Osaka"}, {"BR", "Recife"}};
    private static final String[] TIERS = {"bronze", "silver", "gold", "platinum"};
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The field the source starts sending part-way through a feed with a schema change. */
    public static final String NEW_FIELD = "preferred_channel";
    private static final String[] CHANNELS = {"email", "sms", "app"};
    /** Per ten customers, how many have no preferred channel (their {@value #NEW_FIELD} is NULL). */
    private static final int NULL_CHANNEL_IN_TEN = 4;
    /** A feed without a schema change. */
    public static final int NEVER = Integer.MAX_VALUE;

    /** One record to produce: key and value bytes (value null = tombstone), and what it is. */
    public record FeedRecord(byte[] key, byte[] value, String kind) {
        public String valueText() {
            return value == null ? null : new String(value, StandardCharsets.UTF_8);
        }
    }

    private final Random rnd;
    private final int customers;
    private final Map<String, Map<String, Object>> state = new LinkedHashMap<>();
    private final List<FeedRecord> sent = new ArrayList<>();
    private final java.util.Set<String> everDeleted = new java.util.HashSet<>();
    private Instant clock;
    /** Index (0-based) of the first record that may carry {@link #NEW_FIELD}; {@link #NEVER} for none. */
    private final int newFieldFrom;
    private final Random newFieldRnd;
    /** Each customer's {@link #NEW_FIELD} value once drawn (null: the customer has none). */
    private final Map<String, String> channels = new LinkedHashMap<>();
    private int produced;

    /** A feed without a schema change. */
    public CustomerFeed(long seed, int customers, Instant start) {
        this(seed, customers, start, NEVER);
    }

    /**
     * A feed whose upserts carry {@link #NEW_FIELD} from its record number {@code newFieldFrom}
     * (0-based, counting every record: duplicates and malformed ones too) on.
     */
    public CustomerFeed(long seed, int customers, Instant start, int newFieldFrom) {
        if (newFieldFrom < 0) {
            throw new IllegalArgumentException("newFieldFrom must be >= 0, got " + newFieldFrom);
        }
        this.rnd = new Random(seed);
        this.customers = customers;
        this.clock = start;
        this.newFieldFrom = newFieldFrom;
        this.newFieldRnd = new Random(~seed);
    }

    /** Index (0-based) of the first record that may carry {@link #NEW_FIELD}; {@link #NEVER} for a feed without a schema change. */
    public int newFieldFrom() {
        return newFieldFrom;
    }

    /** The next {@code n} records of the feed. */
    public List<FeedRecord> next(int n) {
        List<FeedRecord> out = new ArrayList<>(n);
        while (out.size() < n) {
            boolean newField = produced++ >= newFieldFrom;
            clock = clock.plus(Duration.ofSeconds(30 + rnd.nextInt(600)));
            String id = String.format("C%04d", 1 + rnd.nextInt(customers));
            Map<String, Object> current = state.get(id);
            int roll = rnd.nextInt(100);
            FeedRecord r;
            if (roll < 2) {
                r = malformed(id);
            } else if (roll < 5 && !sent.isEmpty()) {
                r = sent.get(rnd.nextInt(sent.size())); // exact duplicate: a producer retry
                r = new FeedRecord(r.key(), r.value(), "duplicate");
            } else if (roll < 9 && current != null) {
                r = late(id, current, newField);
            } else if (current == null) {
                r = upsert(id, withNewField(id, create(id), newField), clock, everDeleted.contains(id) ? "resurrection" : "create");
            } else if (roll < 16) {
                r = delete(id, clock);
            } else if (roll < 40) {
                Map<String, Object> next = new LinkedHashMap<>(current);
                next.put("last_login", clock.getEpochSecond());
                r = upsert(id, withNewField(id, next, newField), clock, "type-1 change");
            } else {
                r = upsert(id, withNewField(id, change(current), newField), clock, "tracked change");
            }
            if (!r.kind().equals("duplicate") && !r.kind().equals("malformed")) {
                sent.add(r);
            }
            out.add(r);
        }
        return out;
    }

    private Map<String, Object> create(String id) {
        Map<String, Object> d = new LinkedHashMap<>();
        String first = FIRST[rnd.nextInt(FIRST.length)];
        String last = LAST[rnd.nextInt(LAST.length)];
        String[] place = PLACES[rnd.nextInt(PLACES.length)];
        d.put("customer_id", id);
        d.put("email", (first + "." + last + "@example.com").toLowerCase(java.util.Locale.ROOT));
        d.put("full_name", first + " " + last);
        d.put("country", place[0]);
        d.put("city", place[1]);
        d.put("loyalty_tier", TIERS[rnd.nextInt(2)]);
        d.put("last_login", clock.getEpochSecond());
        return d;
    }

    private Map<String, Object> change(Map<String, Object> current) {
        Map<String, Object> d = new LinkedHashMap<>(current);
        switch (rnd.nextInt(3)) {
            case 0 -> {
                String[] place = PLACES[rnd.nextInt(PLACES.length)];
                d.put("country", place[0]);
                d.put("city", place[1]);
            }
            case 1 -> d.put("loyalty_tier", TIERS[rnd.nextInt(TIERS.length)]);
            default -> d.put("email", "c" + rnd.nextInt(100_000) + "@example.com");
        }
        d.put("last_login", clock.getEpochSecond());
        return d;
    }

    private FeedRecord late(String id, Map<String, Object> current, boolean newField) {
        // an upstream system catching up: an event from a few hours before now
        Instant t = clock.minus(Duration.ofMinutes(30 + rnd.nextInt(600)));
        // the state is not advanced: the late event is not the key's newest
        return record(id, "upsert", t, withNewField(id, change(current), newField), "late");
    }

    /** {@code data} with the customer's {@link #NEW_FIELD} (drawn at its first use) when the feed sends it by now. */
    private Map<String, Object> withNewField(String id, Map<String, Object> data, boolean newField) {
        if (newField) {
            if (!channels.containsKey(id)) {
                channels.put(id, newFieldRnd.nextInt(10) < NULL_CHANNEL_IN_TEN ? null : CHANNELS[newFieldRnd.nextInt(CHANNELS.length)]);
            }
            data.put(NEW_FIELD, channels.get(id));
        }
        return data;
    }

    private FeedRecord upsert(String id, Map<String, Object> data, Instant t, String kind) {
        state.put(id, data);
        return record(id, "upsert", t, data, kind);
    }

    private FeedRecord delete(String id, Instant t) {
        state.remove(id);
        everDeleted.add(id);
        return record(id, "delete", t, Map.of("customer_id", id), "delete");
    }

    private FeedRecord malformed(String id) {
        String now = ColumnType.CANONICAL_TIMESTAMP.format(clock);
        String[] bad = {
            // whole row images with one bad value (not partial ones: under schema-evolution: lenient a
            // missing field means "no longer sent", which is not what these records are about)
            "{\"op\":\"upsert\",\"event_time\":\"2025-13-45T99:00:00Z\",\"data\":" + rowImage(id, "\"" + id + "\"", "1754000000") + "}",
            "{\"op\":\"upsert\",\"event_time\":\"" + now + "\",\"data\":" + rowImage(id, "null", "1754000000") + "}",
            "{\"op\":\"upsert\",\"event_time\":\"" + now + "\",\"data\":" + rowImage(id, "\"" + id + "\"", "\"yesterday\"") + "}",
            "{\"op\":\"upsert\",\"event_time\":\"2025-08-",
        };
        return new FeedRecord(id.getBytes(StandardCharsets.UTF_8), bad[rnd.nextInt(bad.length)].getBytes(StandardCharsets.UTF_8), "malformed");
    }

    /** A customer's whole {@code data} object as JSON text, with the given JSON for its id and last_login. */
    private static String rowImage(String id, String idJson, String lastLoginJson) {
        return "{\"customer_id\":" + idJson + ",\"email\":\"" + id.toLowerCase(java.util.Locale.ROOT) + "@example.com\","
                + "\"full_name\":\"Unknown\",\"country\":\"FR\",\"city\":\"Paris\",\"loyalty_tier\":\"bronze\",\"last_login\":"
                + lastLoginJson + "}";
    }

    private static FeedRecord record(String id, String op, Instant t, Map<String, Object> data, String kind) {
        ObjectNode root = JSON.createObjectNode();
        root.put("op", op);
        root.put("event_time", ColumnType.CANONICAL_TIMESTAMP.format(t));
        root.set("data", JSON.valueToTree(data));
        try {
            return new FeedRecord(id.getBytes(StandardCharsets.UTF_8), JSON.writeValueAsBytes(root), kind);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
