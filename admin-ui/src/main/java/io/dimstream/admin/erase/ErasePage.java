package io.dimstream.admin.erase;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.dimstream.admin.auth.Security;
import io.dimstream.admin.web.BadRequest;
import io.dimstream.admin.web.EntityCatalog;
import io.dimstream.admin.web.PageRenderer;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.erase.Erasure;
import io.dimstream.db.jobs.ReplayKeys;
import io.javalin.http.Context;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;

/**
 * {@code POST /history/{entity}/erase} (the form under a key's history, admin role) and its JSON twin
 * {@code POST /api/erase/{entity}}: erases one key through {@link Erasure} (one transaction, audited
 * with the user, never the key), with a tombstone unless {@code no_tombstone} is sent. Fields:
 * {@code k} once per key column in key order (as the history page's URL names the key),
 * {@code confirm=erase} (the form's confirmation; refused without it, nothing erased).
 */
public final class ErasePage {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What the erasure did: rows removed (or bookkeeping entries rewritten) per place, the tombstones
     * added; {@code message} the sentence the page shows. Never the key.
     */
    public record Outcome(String entity, int keys, Map<String, Long> removed, long total, boolean tombstone, int tombstones,
                          String message) {
    }

    private final Erasure erasure;
    private final EntityCatalog catalog;
    private final PageRenderer pages;

    public ErasePage(Erasure erasure, EntityCatalog catalog, PageRenderer pages) {
        this.erasure = erasure;
        this.catalog = catalog;
        this.pages = pages;
    }

    Outcome erase(Context ctx) throws SQLException {
        EntitySpec spec = catalog.spec(ctx.pathParam("entity"));
        if (!"erase".equals(ctx.formParam("confirm"))) {
            throw new BadRequest("confirm: tick the confirmation (confirm=erase) to erase the key; nothing was erased");
        }
        List<String> k = ctx.formParams("k");
        if (k.size() != spec.key().size()) {
            throw new BadRequest("k: entity " + spec.name() + " has " + spec.key().size() + " key column(s) " + spec.key()
                    + "; give k= once for each, in that order (got " + k.size() + ")");
        }
        ObjectNode key = JSON.createObjectNode();
        for (int i = 0; i < k.size(); i++) {
            key.put(spec.key().get(i), k.get(i));
        }
        List<String> canonical;
        try {
            canonical = ReplayKeys.parseKey("k", key.toString(), spec);
        } catch (IllegalArgumentException e) {
            throw new BadRequest(e.getMessage());
        }
        boolean tombstone = ctx.formParam("no_tombstone") == null;
        String user = Security.principal(ctx).name();
        Erasure.Report r = erasure.erase(spec, List.of(canonical), tombstone, user);
        String message = "A key of " + spec.name() + " was erased by " + user + " in one transaction: " + r.total()
                + " rows removed or rewritten; " + (tombstone
                        ? "its tombstone drops its events from now on."
                        : "no tombstone was kept: a replay of the topic brings the key back.")
                + " Kafka keeps its copies until compaction or retention removes them.";
        return new Outcome(spec.name(), r.keys(), r.removed(), r.total(), tombstone, r.tombstones(), message);
    }

    public void erasePage(Context ctx) throws SQLException {
        pages.render(ctx, "erase.jte", "history", Map.of("outcome", erase(ctx)));
    }

    public void eraseApi(Context ctx) throws SQLException {
        ctx.json(erase(ctx));
    }
}
