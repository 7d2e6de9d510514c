package io.dimstream.admin.login;

import io.dimstream.admin.auth.ClientAddress;
import io.dimstream.admin.auth.LogText;
import io.dimstream.admin.auth.LoginThrottle;
import io.dimstream.admin.auth.Principal;
import io.dimstream.admin.auth.Security;
import io.dimstream.admin.auth.Sessions;
import io.dimstream.admin.web.Views;
import io.dimstream.config.model.AdminConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Login and logout. The login form is CSRF-protected before any session exists by a
 * double-submit token: a random value both in an HttpOnly SameSite=Strict cookie scoped to
 * {@code /login} and in the form's hidden field, which must match (it stops a cross-site form,
 * not a script: a script may send any value twice). Logins are throttled per (user name, client)
 * and per client ({@link LoginThrottle}, the client from {@link ClientAddress}); the attempt is
 * reserved before the password is checked; past a limit, 429 with Retry-After. User names are
 * logged through {@link LogText}, so a name holding CR or LF cannot forge a log line.
 */
public final class LoginPages {

    private static final Logger LOG = LoggerFactory.getLogger(LoginPages.class);

    private final Security security;
    private final Views views;
    private final LoginThrottle throttle;
    private final ClientAddress clients;

    public LoginPages(Security security, Views views, LoginThrottle throttle, ClientAddress clients) {
        this.security = security;
        this.views = views;
        this.throttle = throttle;
        this.clients = clients;
    }

    public void form(Context ctx) {
        render(ctx, safeNext(ctx.queryParam("next")), null);
    }

    private void render(Context ctx, String next, String error) {
        // keep the token the browser already holds: a second login page (another tab, or a
        // redirected favicon request) must not invalidate the form shown first
        String held = ctx.cookie(Security.LOGIN_COOKIE);
        String token = held != null && held.matches("[A-Za-z0-9_-]{43}") ? held : Sessions.randomToken();
        security.setCookie(ctx, Security.LOGIN_COOKIE, token, "/login", 1800);
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("csrfToken", token);
        params.put("next", next);
        params.put("error", error);
        views.render(ctx, "login.jte", params);
    }

    public void submit(Context ctx) {
        String cookie = ctx.cookie(Security.LOGIN_COOKIE);
        String field = ctx.formParam(Security.CSRF_FIELD);
        if (cookie == null || field == null || !MessageDigest.isEqual(cookie.getBytes(StandardCharsets.UTF_8),
                field.getBytes(StandardCharsets.UTF_8))) {
            ctx.status(HttpStatus.FORBIDDEN).contentType("text/plain; charset=utf-8")
                    .result("403 Forbidden: the login form expired or was not sent by this site; reload /login and try again");
            return;
        }
        String next = safeNext(ctx.formParam("next"));
        String user = ctx.formParam("username");
        String password = ctx.formParam("password");
        ClientAddress.Client client = clients.of(ctx);
        // one step: the limits are checked and this attempt counted before bcrypt runs, so parallel
        // requests cannot all pass the check first (LoginThrottle's class comment)
        LoginThrottle.Attempt attempt = throttle.tryAcquire(user, client.throttleKey());
        if (attempt instanceof LoginThrottle.Refused refused) {
            // rounded up: a client that waits exactly this long finds the lock gone
            long seconds = Math.max(1, (refused.retryAfter().toMillis() + 999) / 1000);
            long minutes = Math.max(1, (seconds + 59) / 60);
            LOG.warn("login for user {} from {} refused: too many failed logins (retry in {} s)", LogText.of(user), client.address(),
                    seconds);
            ctx.status(HttpStatus.TOO_MANY_REQUESTS).header("Retry-After", Long.toString(seconds));
            render(ctx, next, "Too many failed logins. Try again in " + minutes + (minutes == 1 ? " minute." : " minutes."));
            return;
        }
        // bcrypt reads 72 bytes at most: a longer password would match on its first 72 alone
        boolean checkable = password != null && password.getBytes(StandardCharsets.UTF_8).length <= AdminConfig.MAX_PASSWORD_BYTES;
        Optional<Principal> p = checkable ? security.accounts().login(user, password) : Optional.empty();
        if (p.isEmpty()) {
            LOG.info("failed login for user {} from {}", LogText.of(user), client.address());
            ctx.status(HttpStatus.UNAUTHORIZED);
            render(ctx, next, "Unknown user or wrong password.");
            return;
        }
        ((LoginThrottle.Permit) attempt).succeeded();
        // the same browser logging in again: its old session ends (no second live session behind it)
        security.sessions().close(ctx.cookie(Security.SESSION_COOKIE));
        Sessions.Session s = security.sessions().open(p.get());
        LOG.info("user {} ({}) logged in from {}", p.get().name(), p.get().role().configName(), client.address());
        security.setCookie(ctx, Security.SESSION_COOKIE, s.id(), "/", -1);
        security.setCookie(ctx, Security.LOGIN_COOKIE, "", "/login", 0);
        ctx.redirect(next, HttpStatus.SEE_OTHER);
    }

    public void logout(Context ctx) {
        Security.session(ctx).ifPresent(s -> security.sessions().close(s.id()));
        security.setCookie(ctx, Security.SESSION_COOKIE, "", "/", 0);
        ctx.redirect("/login", HttpStatus.SEE_OTHER);
    }

    /** A path on this site only ("/..." but not "//host" or "/\host"), else "/": no open redirect. */
    static String safeNext(String next) {
        if (next == null || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")
                || next.chars().anyMatch(ch -> ch < 0x20)) {
            return "/";
        }
        return next;
    }
}
