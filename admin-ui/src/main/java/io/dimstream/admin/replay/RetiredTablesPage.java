package io.dimstream.admin.replay;

import io.dimstream.admin.auth.Security;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.NotFound;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.jobs.RetiredTables;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code /replay-tables}: the tables shadow replays left behind ({@link RetiredTables}: a swap's
 * {@code T_replaced_<job>}, a failed job's {@code T_shadow_<job>}, each with its memory) with size
 * and age, and a Drop button per table (admin role; audited {@code replay.drop-retired} with the
 * user). {@code /api/replay-tables} is the JSON twin. {@code service.replay.keep-replaced-tables}
 * has the service drop them by age.
 */
public final class RetiredTablesPage {

    /** The page: the retired tables, oldest job first. */
    public record Model(List<RetiredTables.Retired> tables) {
    }

    private final DataSource ds;
    private final EntityCatalog catalog;
    private final PageRenderer pages;

    public RetiredTablesPage(DataSource ds, EntityCatalog catalog, PageRenderer pages) {
        this.ds = ds;
        this.catalog = catalog;
        this.pages = pages;
    }

    private List<EntitySpec> entities() {
        return catalog.names().stream().map(catalog::configSpec).toList();
    }

    public void page(Context ctx) throws SQLException {
        pages.render(ctx, "replay-tables.jte", "replay", Map.of("model", new Model(RetiredTables.list(ds, entities()))));
    }

    public void api(Context ctx) throws SQLException {
        ctx.json(new Model(RetiredTables.list(ds, entities())));
    }

    /** {@code POST /replay-tables/{id}/drop}: drops the job's retired table and memory, audited; back to the list. */
    public void drop(Context ctx) throws SQLException {
        String raw = ctx.pathParam("id");
        long job;
        try {
            job = Long.parseLong(raw);
        } catch (NumberFormatException e) {
            throw new BadRequest("job: \"" + raw + "\" is not a job number");
        }
        if (RetiredTables.drop(ds, entities(), job, Security.principal(ctx).name()).isEmpty()) {
            throw new NotFound("replay job " + job + " left no table to drop (dropped already, or not a finished shadow job)");
        }
        ctx.redirect("/replay-tables", HttpStatus.SEE_OTHER);
    }
}
