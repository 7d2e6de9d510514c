package io.dimstream.db.schema;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.entity.TypeWidening;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * An entity's columns as its table has them, each with its role and where it came from: the
 * config, or the catalog of columns added while running ({@link EvolvedColumns}). In the order of
 * the spec merged with the catalog (key, tracked, type-1, each the config's then the added ones in
 * catalog order, then the system columns): the order every reader of the entity uses, not the
 * table's physical order (an added column is physically last). What the admin's columns page and
 * {@code dimstream config} show; knows nothing of HTTP.
 */
public final class ColumnOrigins {

    private ColumnOrigins() {
    }

    /** What a column is to the entity. */
    public enum Role {
        KEY("key"),
        TRACKED("tracked"),
        TYPE1("type-1"),
        /** one of the columns dimstream maintains beside the entity's own ({@code system-columns:}) */
        SYSTEM("system column");

        private final String label;

        Role(String label) {
            this.label = label;
        }

        /** How a page or the command line names it. */
        public String label() {
            return label;
        }
    }

    /**
     * Where a column came from. A small closed set, so a reader handles every case. A widened type
     * is not an origin but a later change to a column of either origin ({@link Column#widened}).
     */
    public sealed interface Origin permits Config, AddedWhileRunning {

        /** One phrase for a page or the command line: {@code config}, {@code added while running at ... from ...}. */
        String describe();
    }

    /** Declared by the entity's config ({@code columns:}, {@code system-columns:} or their defaults). */
    public record Config() implements Origin {
        @Override
        public String describe() {
            return "config";
        }
    }

    /**
     * Added while running ({@code new-columns: tracked | type1}), as {@code dimstream.entity_columns} records it.
     *
     * @param firstSource the change that first carried it, {@code topic-partition@offset}; null when the catalog has none
     */
    public record AddedWhileRunning(Instant at, String firstSource) implements Origin {
        public AddedWhileRunning {
            Objects.requireNonNull(at, "at");
        }

        @Override
        public String describe() {
            return "added while running at " + at + (firstSource == null ? "" : " from " + firstSource);
        }
    }

    /**
     * The column's type was widened while running ({@code dimstream.entity_columns.widened_from/_at}).
     *
     * @param from the type before the last widening, as {@code format_type} prints it
     */
    public record Widened(String from, Instant at) {
        public Widened {
            Objects.requireNonNull(from, "from");
            Objects.requireNonNull(at, "at");
        }

        /** {@code type widened from integer at ...}. */
        public String describe() {
            return "type widened from " + from + " at " + at;
        }
    }

    /**
     * One column.
     *
     * @param sqlType the column's type as PostgreSQL's {@code format_type} prints it, modifiers included
     *                ({@code character varying(40)}, {@code numeric(12,2)}): the widened one when widened
     * @param widened the last widening of its type, when its type now is the widened one
     */
    public record Column(String name, String sqlType, Role role, Origin origin, Optional<Widened> widened) {
        public Column {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(sqlType, "sqlType");
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(origin, "origin");
            Objects.requireNonNull(widened, "widened");
        }

        /** A column never widened. */
        public Column(String name, String sqlType, Role role, Origin origin) {
            this(name, sqlType, role, origin, Optional.empty());
        }

        /** Origin and widening in one phrase: {@code config; type widened from integer at ...}. */
        public String describe() {
            return origin.describe() + widened.map(w -> "; " + w.describe()).orElse("");
        }

        /** Whether the catalog has something to say of it: added while running, or widened. */
        public boolean fromCatalog() {
            return !(origin instanceof Config) || widened.isPresent();
        }
    }

    /**
     * The columns of {@code spec} merged with {@code catalog}. {@code spec} may be the config's or
     * already merged: a column the catalog holds and the config declares itself is the config's
     * ({@link EvolvedColumns#merge}).
     */
    public static List<Column> of(EntitySpec spec, List<EvolvedColumns.Column> catalog) {
        EntitySpec merged = EvolvedColumns.merge(spec, catalog);
        Map<String, EvolvedColumns.Column> rows = catalog.stream()
                .collect(Collectors.toMap(EvolvedColumns.Column::column, Function.identity()));
        List<Column> out = new ArrayList<>();
        for (Map.Entry<String, String> col : TableCheck.expectedTableColumns(merged).entrySet()) {
            String name = col.getKey();
            EvolvedColumns.Column row = rows.get(name);
            EvolvedColumns.Column added = merged.evolved().contains(name) ? row : null;
            Origin origin = added == null ? new Config() : new AddedWhileRunning(added.addedAt(), added.firstSource());
            Optional<Widened> widened = Optional.empty();
            if (row != null && row.widenedFrom().isPresent() && row.widenedAt().isPresent()
                    && merged.columns().containsKey(name) && TypeWidening.ColumnDef.of(merged, name).equals(row.def())) {
                // only while the type is the widened one: a config declaring another type since has the last word
                widened = Optional.of(new Widened(row.widenedFrom().get(), row.widenedAt().get()));
            }
            out.add(new Column(name, col.getValue(), role(merged, name), origin, widened));
        }
        return List.copyOf(out);
    }

    /** {@link #of} with the entity's catalog read from {@code ds}. */
    public static List<Column> read(DataSource ds, EntitySpec spec) throws SQLException {
        return of(spec, EvolvedColumns.list(ds, spec.name()));
    }

    private static Role role(EntitySpec e, String column) {
        if (e.key().contains(column)) {
            return Role.KEY;
        }
        if (e.tracked().contains(column)) {
            return Role.TRACKED;
        }
        return e.type1().contains(column) ? Role.TYPE1 : Role.SYSTEM;
    }
}
