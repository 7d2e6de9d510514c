package io.dimstream.admin.columns;

import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.schema.ColumnOrigins;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code /columns/{entity}}: the entity's columns in the order dimstream reads them (the config's
 * spec merged with {@code dimstream.entity_columns}), each with its type (modifiers included), role
 * and origin: the config, or added while running, when and from which change; and, when its type
 * was widened while running, from which type and when. JSON twin under
 * {@code /api}. The catalog is read at each request; a database failure is the page's error (not
 * the config's columns shown as if nothing had been added).
 */
public final class ColumnsPage {

    /** The page's model and the JSON twin's body. */
    public record Model(String entity, String table, List<Row> columns, long addedWhileRunning) {
        public Model {
            columns = List.copyOf(columns);
        }
    }

    /**
     * One column; {@code role}: key, tracked, type-1 or system column; {@code widened}: null unless
     * its type was widened while running ({@code type} is then the widened one).
     */
    public record Row(String name, String type, String role, Origin origin, Widened widened) {
    }

    /** The last widening of a column's type: the type before it, when, and the phrase the page shows. */
    public record Widened(String from, Instant at, String text) {

        static Widened of(ColumnOrigins.Widened w) {
            return new Widened(w.from(), w.at(), w.describe());
        }
    }

    /**
     * Where a column came from, flat for JSON: {@code kind} {@code config} (at and source null) or
     * {@code added} (the catalog's instant and the change that first carried it, topic-partition@offset);
     * {@code text} is the phrase the page shows.
     */
    public record Origin(String kind, String text, Instant at, String source) {

        static Origin of(ColumnOrigins.Origin o) {
            if (o instanceof ColumnOrigins.AddedWhileRunning a) {
                return new Origin("added", o.describe(), a.at(), a.firstSource());
            }
            if (o instanceof ColumnOrigins.Config) {
                return new Origin("config", o.describe(), null, null);
            }
            throw new IllegalStateException("no view of origin " + o);
        }
    }

    private final DataSource ds;
    private final EntityCatalog catalog;
    private final PageRenderer pages;

    public ColumnsPage(DataSource ds, EntityCatalog catalog, PageRenderer pages) {
        this.ds = ds;
        this.catalog = catalog;
        this.pages = pages;
    }

    Model model(Context ctx) throws SQLException {
        EntitySpec e = catalog.configSpec(ctx.pathParam("entity"));
        List<Row> rows = ColumnOrigins.read(ds, e).stream()
                .map(c -> new Row(c.name(), c.sqlType(), c.role().label(), Origin.of(c.origin()),
                        c.widened().map(Widened::of).orElse(null)))
                .toList();
        long added = rows.stream().filter(r -> r.origin().kind().equals("added")).count();
        return new Model(e.name(), e.table(), rows, added);
    }

    public void page(Context ctx) throws SQLException {
        pages.render(ctx, "columns.jte", "columns", Map.of("model", model(ctx)));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(model(ctx));
    }
}
