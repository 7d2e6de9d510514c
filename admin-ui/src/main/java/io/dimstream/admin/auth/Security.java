package io.dimstream.admin.auth;

import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import io.javalin.http.HttpStatus;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The before-handler every request passes: security headers, then who is asking (a bearer token
 * on {@code /api/...}, else the session cookie), then, for anything but GET/HEAD, the admin role
 * and the session's CSRF token. Public: the login page and static assets. Sessions end after the
 * idle timeout or their lifetime ({@link Sessions}).
 */
public final class Security {

    public static final String SESSION_COOKIE = "dimstream_session";
    public static final String LOGIN_COOKIE = "dimstream_login";
    public static final String CSRF_FIELD = "_csrf";
    public static final String CSRF_HEADER = "X-CSRF-Token";
    private static final String PRINCIPAL = "dimstream.principal";
    private static final String SESSION = "dimstream.session";

    /** No inline script or style anywhere; htmx and the CSS come from this origin. */
    public static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    /** One year, this host only. */
    public static final String HSTS = "max-age=31536000";
    /**
     * The header htmx's background polls send ({@code hx-headers} on the polling element): such a
     * request does not restart the session's idle timeout.
     */
    public static final String POLL_HEADER = "X-Dimstream-Poll";

    private final Accounts accounts;
    private final Sessions sessions;
    private final boolean secureCookie;

    public Security(Accounts accounts, Sessions sessions, boolean secureCookie) {
        this.accounts = accounts;
        this.sessions = sessions;
        this.secureCookie = secureCookie;
    }

    public Sessions sessions() {
        return sessions;
    }

    public Accounts accounts() {
        return accounts;
    }

    /**
     * The headers every response carries (pages, API, CSV, static files, errors; Jetty's own error
     * responses get them from {@code JettyErrors}): the CSP, nosniff, no referrer, no framing,
     * {@code no-store} except on static assets, and with secure cookies HSTS.
     */
    public void headers(Context ctx) {
        headers(ctx.path(), secureCookie).forEach(ctx::header);
    }

    /** The security headers of a response to {@code path} (null: not a static asset). */
    public static Map<String, String> headers(String path, boolean secure) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Security-Policy", CSP);
        h.put("X-Content-Type-Options", "nosniff");
        h.put("Referrer-Policy", "no-referrer");
        h.put("X-Frame-Options", "DENY");
        if (path == null || !isStatic(path)) {
            h.put("Cache-Control", "no-store");
        }
        if (secure) {
            // served over HTTPS (that is what secure-cookie says): browsers must not fall back to
            // plain http for a year; no includeSubDomains, the other hosts of the domain are not ours
            h.put("Strict-Transport-Security", HSTS);
        }
        return h;
    }

    /**
     * A static asset's path: under /static/ or /webjars/, plain segments only. A segment starting
     * with a dot ({@code ..}), an escape or a doubled slash makes it an ordinary path, which needs a
     * login: {@code /static/../api/replays} never passes as public.
     */
    private static final java.util.regex.Pattern STATIC = java.util.regex.Pattern.compile(
            "/(static|webjars)(/[A-Za-z0-9_-][A-Za-z0-9._-]*)+");

    private static boolean isStatic(String path) {
        return STATIC.matcher(path).matches();
    }

    private static boolean isPublic(String path) {
        return path.equals("/login") || path.equals("/favicon.ico") || isStatic(path);
    }

    private static boolean isApi(String path) {
        return path.equals("/api") || path.startsWith("/api/");
    }

    private static boolean safeMethod(Context ctx) {
        return ctx.method() == HandlerType.GET || ctx.method() == HandlerType.HEAD || ctx.method() == HandlerType.OPTIONS;
    }

    /** The before-handler. */
    public void check(Context ctx) {
        headers(ctx);
        String path = ctx.path();
        if (isPublic(path)) {
            return;
        }
        Principal p = null;
        Sessions.Session session = null;
        String auth = ctx.header("Authorization");
        if (auth != null && isApi(path)) {
            if (!auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
                deny(ctx, HttpStatus.UNAUTHORIZED, "Authorization: only \"Bearer <token>\" is accepted");
                return;
            }
            Optional<Principal> b = accounts.bearer(auth.substring(7).trim());
            if (b.isEmpty()) {
                deny(ctx, HttpStatus.UNAUTHORIZED, "unknown API token");
                return;
            }
            p = b.get();
        } else {
            // a background poll (dashboard, job progress) is not activity: an open tab alone does not
            // keep a session alive (and the session's lifetime ends it anyway)
            session = sessions.find(ctx.cookie(SESSION_COOKIE), ctx.header(POLL_HEADER) == null).orElse(null);
            p = session == null ? null : session.principal();
        }
        if (p == null) {
            if ("true".equals(ctx.header("HX-Request"))) {
                // an htmx poll (the dashboard) after the session expired: send the whole page to the login,
                // instead of letting the XHR follow a redirect and swap the login form into the page
                ctx.header("HX-Redirect", "/login?next=%2F");
                deny(ctx, HttpStatus.UNAUTHORIZED, "the session expired; log in again");
                return;
            }
            if (!isApi(path) && safeMethod(ctx)) {
                String next = ctx.queryString() == null ? path : path + "?" + ctx.queryString();
                ctx.redirect("/login?next=" + URLEncoder.encode(next, StandardCharsets.UTF_8), HttpStatus.SEE_OTHER);
                ctx.skipRemainingHandlers();
                return;
            }
            deny(ctx, HttpStatus.UNAUTHORIZED, "log in first (or send Authorization: Bearer <token> to /api/...)");
            return;
        }
        ctx.attribute(PRINCIPAL, p);
        ctx.attribute(SESSION, session);
        if (safeMethod(ctx)) {
            return;
        }
        if (session != null) {
            String token = ctx.header(CSRF_HEADER);
            if (token == null) {
                token = ctx.formParam(CSRF_FIELD);
            }
            if (!session.csrfMatches(token)) {
                deny(ctx, HttpStatus.FORBIDDEN, "missing or wrong CSRF token: reload the page and try again");
                return;
            }
        }
        if (!path.equals("/logout") && !p.admin()) {
            deny(ctx, HttpStatus.FORBIDDEN, "the " + p.role().configName() + " role may not change anything; an admin may");
        }
    }

    private static void deny(Context ctx, HttpStatus status, String why) {
        ctx.status(status);
        if (isApi(ctx.path())) {
            ctx.json(java.util.Map.of("error", why));
        } else {
            ctx.contentType("text/plain; charset=utf-8").result(status.getCode() + " " + status.getMessage() + ": " + why);
        }
        ctx.skipRemainingHandlers();
    }

    /** The principal the before-handler found; only called on protected routes. */
    public static Principal principal(Context ctx) {
        Principal p = ctx.attribute(PRINCIPAL);
        if (p == null) {
            throw new IllegalStateException("no principal on " + ctx.path() + ": the route is not behind Security.check");
        }
        return p;
    }

    /** The principal the before-handler found, if it found one (error pages of public paths have none). */
    public static Optional<Principal> optionalPrincipal(Context ctx) {
        return Optional.ofNullable(ctx.attribute(PRINCIPAL));
    }

    /** The session of a browser request; empty for bearer requests. */
    public static Optional<Sessions.Session> session(Context ctx) {
        return Optional.ofNullable(ctx.attribute(SESSION));
    }

    /** {@code Set-Cookie} with HttpOnly, SameSite=Strict, Path, and Secure when configured. */
    public void setCookie(Context ctx, String name, String value, String path, long maxAgeSeconds) {
        StringBuilder b = new StringBuilder(name).append('=').append(value).append("; Path=").append(path)
                .append("; HttpOnly; SameSite=Strict");
        if (maxAgeSeconds >= 0) {
            b.append("; Max-Age=").append(maxAgeSeconds);
        }
        if (secureCookie) {
            b.append("; Secure");
        }
        ctx.res().addHeader("Set-Cookie", b.toString());
    }
}
