package io.dimstream.db.schema;

import io.dimstream.db.entity.EntitySpec;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one owner of each entity's shape as it is now: its columns as the config declares them plus
 * the catalog of columns added and widened while running ({@link EvolvedColumns},
 * {@code dimstream.entity_columns}). Every reader of an entity table asks it ({@link #current}), and a
 * shape changes only through it ({@link #evolve}, in a batch's transaction; {@link #committed} after),
 * so the sink, replays, {@code load}, shadow tables and the admin apply and read the same columns.
 *
 * <p>Who reads it: the service (its sink, replay worker and pruner share one), {@code load}, the
 * admin (read again at each lookup) and the command line's replay verbs. The topology is the one
 * reader that knows no SQL: it starts with the shape read here and learns a column the source starts
 * sending from the records themselves, naming it in the change record for the sink, whose batch adds
 * it here ({@link #evolve}).
 *
 * <p>Thread-safe: the sink's parallel groups, the replay worker and the admin share one. The
 * shape is cached per entity and read again from the catalog after a change this process committed,
 * or when a reader asks for it ({@link #reread}: a replay job's start, a shape another instance may
 * have changed).
 */
public final class EntityShapes {

    private static final Logger LOG = LoggerFactory.getLogger(EntityShapes.class);

    private final DataSource ds;
    private final Map<String, EntitySpec> configured;
    private final Set<String> type1NewColumns;
    private final Map<String, EntitySpec> current = new ConcurrentHashMap<>();

    /**
     * @param configured      the entities as the config declares them
     * @param type1NewColumns the entities whose columns added while running are type-1 ({@code new-columns: type1});
     *                        the others' are tracked
     */
    public EntityShapes(DataSource ds, Collection<EntitySpec> configured, Set<String> type1NewColumns) {
        this.ds = ds;
        Map<String, EntitySpec> byName = new LinkedHashMap<>();
        for (EntitySpec e : configured) {
            if (byName.put(e.name(), e) != null) {
                throw new IllegalArgumentException("entities: '" + e.name() + "' is listed twice");
            }
        }
        this.configured = Map.copyOf(byName);
        this.type1NewColumns = Set.copyOf(type1NewColumns);
    }

    /** Shapes of entities whose columns added while running are tracked. */
    public static EntityShapes of(DataSource ds, EntitySpec... configured) {
        return new EntityShapes(ds, List.of(configured), Set.of());
    }

    /** The entities' names, in config order. */
    public Set<String> entities() {
        return configured.keySet();
    }

    /** The entity as the config declares it (no catalog columns). */
    public EntitySpec configured(String entity) {
        EntitySpec e = configured.get(entity);
        if (e == null) {
            throw new IllegalArgumentException("no entity '" + entity + "' (known: " + configured.keySet() + ")");
        }
        return e;
    }

    /** Whether a column the entity's source starts sending while running becomes a tracked column (else type-1). */
    public boolean tracksNewColumns(String entity) {
        return !type1NewColumns.contains(entity);
    }

    /** The entity's shape now: the config with the catalog's columns, read once and then after each change. */
    public EntitySpec current(String entity) throws SQLException {
        EntitySpec e = current.get(entity);
        return e != null ? e : reread(entity);
    }

    /** The entity's shape read from the catalog again (another instance may have added or widened a column). */
    public EntitySpec reread(String entity) throws SQLException {
        EntitySpec e = EvolvedColumns.withCatalog(ds, configured(entity));
        current.put(entity, e);
        return e;
    }

    /**
     * Adds the columns and applies the widenings {@code shape} does not have yet, in the caller's
     * transaction, before anything of it is written ({@code ALTER TABLE} waits for the table's other
     * writers and must not find this transaction holding locks they wait for). Returns the shape to
     * apply the batch with; nothing is cached until {@link #committed}.
     *
     * @throws EvolvedColumns.UnsafeTypeChange a widening that is no safe one (the caller's partition stops on it)
     */
    public EntitySpec evolve(Connection c, EntitySpec shape, List<EvolvedColumns.NewColumn> add, List<EvolvedColumns.Widening> widen)
            throws SQLException {
        EntitySpec out = shape;
        List<EvolvedColumns.NewColumn> missing = add.stream().filter(n -> !shape.columns().containsKey(n.column())).toList();
        if (!missing.isEmpty()) {
            try {
                out = EvolvedColumns.add(c, out, missing);
            } catch (IllegalArgumentException refused) {
                // a name no column may take (EntitySpec's checks): nothing added; the validator refuses the records naming it
                LOG.warn("{}: new columns {} not added: {}", shape.name(), missing.stream().map(EvolvedColumns.NewColumn::column).toList(),
                        refused.getMessage());
            }
        }
        if (!widen.isEmpty()) {
            out = EvolvedColumns.widen(c, out, widen);
        }
        return out;
    }

    /**
     * A transaction that changed the entity's shape committed: the catalog is read again (two
     * transactions of the entity may have changed different columns; the catalog has both). If it
     * cannot be read, {@code applied} is taken as the shape until the next change.
     */
    public EntitySpec committed(EntitySpec applied) {
        try {
            return reread(applied.name());
        } catch (SQLException | RuntimeException e) {
            LOG.warn("{}: catalog not read again after a column change ({}); going on with the shape the transaction applied",
                    applied.name(), e.toString());
            current.put(applied.name(), applied);
            return applied;
        }
    }

    /**
     * Makes another table of the entity (a replay's shadow, {@code target}) hold every column of
     * {@code shape} with its type, in the caller's transaction: a column added or widened on the live
     * table while a shadow replay runs is added to or widened on the shadow and its memory (no catalog
     * row: the catalog describes the entity, which has it already). Returns {@code shape} on the
     * target's table.
     */
    public EntitySpec conform(Connection c, EntitySpec shape, EntitySpec target) throws SQLException {
        EntitySpec out = shape.withTable(target.table());
        EvolvedColumns.catchUp(c, out);
        return out;
    }
}
