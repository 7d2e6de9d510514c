package io.dimstream.admin.web;

import io.dimstream.admin.auth.Security;
import io.dimstream.db.connect.StatementTimeouts;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a request that failed answers. A refusal the user can act on says why, naming the
 * parameter ({@link BadRequest} 400, {@link NotFound} 404, {@link Conflict} 409); a value
 * PostgreSQL refuses (SQL state class 22) is 400 with the state only; a query cut by
 * {@code admin.statement-timeout} is 503 with what to do, and so is an {@link Unavailable} (too
 * many exports at once; 507 for an export over its size limit). Anything else is 500 with a generic
 * message and an error id, and the exception is logged in full under that id: the answer never
 * holds an exception's text (a PSQLException quotes values, a pool error its state). Pages answer
 * an error page (inside the layout when someone is logged in, else a plain line), {@code /api}
 * answers {@code {"error": ...}}; every one carries the security headers.
 */
public final class Errors {

    private static final Logger LOG = LoggerFactory.getLogger(Errors.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final PageRenderer pages;
    private final Duration statementTimeout;
    private final Consumer<Context> securityHeaders;

    public Errors(PageRenderer pages, Duration statementTimeout, Consumer<Context> securityHeaders) {
        this.pages = pages;
        this.statementTimeout = statementTimeout;
        this.securityHeaders = securityHeaders;
    }

    public void register(RoutesConfig r) {
        r.exception(BadRequest.class, (e, ctx) -> fail(ctx, 400, e.getMessage(), null));
        r.exception(NotFound.class, (e, ctx) -> fail(ctx, 404, e.getMessage(), null));
        r.exception(Conflict.class, (e, ctx) -> fail(ctx, 409, e.getMessage(), null));
        r.exception(Unavailable.class, (e, ctx) -> fail(ctx, e.status(), e.getMessage(), null));
        // Javalin's own (no route matched, a body over the size limit): the status and its reason only
        r.exception(HttpResponseException.class, (e, ctx) -> fail(ctx, e.getStatus(), reason(e.getStatus()), null));
        r.exception(Exception.class, (e, ctx) -> {
            if (StatementTimeouts.isTimeout(e)) {
                LOG.warn("{} {} cancelled: a statement ran longer than admin.statement-timeout ({})", ctx.method(), ctx.path(),
                        statementTimeout);
                fail(ctx, 503, timeoutMessage(statementTimeout), null);
                return;
            }
            String state = sqlState(e);
            if (state != null && state.startsWith("22")) {
                // a data exception: a value of the request PostgreSQL cannot take (a date key out of its
                // range); said without PostgreSQL's text, which may quote other values
                LOG.warn("{} {} refused by PostgreSQL: SQL state {}", ctx.method(), ctx.path(), state, e);
                fail(ctx, 400, "a value of the request is outside what PostgreSQL accepts (SQL state " + state + ")", null);
                return;
            }
            String id = errorId();
            LOG.error("{} {} failed (error id {})", ctx.method(), ctx.path(), id, e);
            fail(ctx, 500, "the request failed (error id " + id + "); the server's log has the details under this id", id);
        });
    }

    /** A {@link Error} thrown by a handler: logged in full with an id, answered with the id only. */
    public void javaLangError(jakarta.servlet.http.HttpServletResponse res, Error error, boolean secure) {
        String id = errorId();
        LOG.error("a request failed with {} (error id {})", error.getClass().getName(), id, error);
        if (res.isCommitted()) {
            return;
        }
        res.reset();
        Security.headers(null, secure).forEach(res::setHeader);
        res.setStatus(500);
        res.setContentType("text/plain; charset=utf-8");
        try {
            res.getWriter().write("500 Internal Server Error: the request failed (error id " + id
                    + "); the server's log has the details under this id");
        } catch (java.io.IOException e) {
            LOG.debug("could not answer the failed request {}", id, e);
        }
    }

    /** What a page or API call cut by the statement timeout answers (503). */
    public static String timeoutMessage(Duration timeout) {
        return "the query ran longer than admin.statement-timeout (" + human(timeout) + ") and was cancelled: narrow it "
                + "(a key prefix, a shorter range) or ask an operator (docs/querying.md, Big tables)";
    }

    private void fail(Context ctx, int status, String message, String errorId) {
        if (ctx.res().isCommitted()) {
            // a response already on its way (a download): nothing more can be said to the client
            return;
        }
        securityHeaders.accept(ctx);
        ctx.status(status);
        if (ctx.path().startsWith("/api/")) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("error", message);
            if (errorId != null) {
                body.put("error_id", errorId);
            }
            ctx.json(body);
        } else if (Security.optionalPrincipal(ctx).isPresent()) {
            pages.error(ctx, status, message);
        } else {
            ctx.contentType("text/plain; charset=utf-8").result(status + " " + reason(status) + ": " + message);
        }
    }

    private static String sqlState(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof java.sql.SQLException s && s.getSQLState() != null) {
                return s.getSQLState();
            }
        }
        return null;
    }

    private static String reason(int status) {
        HttpStatus s = HttpStatus.forStatus(status);
        return s == HttpStatus.UNKNOWN ? "Error" : s.getMessage();
    }

    private static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    /** 48 random bits as hex: enough to find one line in a log, no meaning to anyone else. */
    static String errorId() {
        byte[] b = new byte[6];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
