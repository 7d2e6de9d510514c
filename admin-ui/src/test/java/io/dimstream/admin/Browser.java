package io.dimstream.admin;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A minimal browser for the functional tests: keeps cookies by hand (so tests see exactly what
 * the server sets), never follows redirects, posts forms.
 */
final class Browser {

    private static final Pattern CSRF = Pattern.compile("name=\"_csrf\" value=\"([^\"]*)\"");

    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    private final String origin;
    final Map<String, String> cookies = new LinkedHashMap<>();
    /** Headers sent with every request (e.g. the X-Forwarded-For a proxy would add). */
    final Map<String, String> headers = new LinkedHashMap<>();

    Browser(String origin) {
        this.origin = origin;
    }

    /** A browser behind a proxy that reports it as {@code address} (X-Forwarded-For). */
    static Browser at(String origin, String address) {
        Browser b = new Browser(origin);
        b.headers.put("X-Forwarded-For", address);
        return b;
    }

    HttpResponse<String> get(String path, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(origin + path)).GET();
        return send(b, headers);
    }

    HttpResponse<String> post(String path, Map<String, String> form, String... headers) {
        String body = form.entrySet().stream().map(e -> enc(e.getKey()) + "=" + enc(e.getValue()))
                .collect(Collectors.joining("&"));
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(origin + path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        return send(b, headers);
    }

    HttpResponse<String> postJson(String path, String json, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(origin + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        return send(b, headers);
    }

    private HttpResponse<String> send(HttpRequest.Builder b, String... extra) {
        headers.forEach(b::header);
        for (int i = 0; i < extra.length; i += 2) {
            b.header(extra[i], extra[i + 1]);
        }
        if (!cookies.isEmpty()) {
            b.header("Cookie", cookies.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining("; ")));
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            for (String sc : r.headers().allValues("Set-Cookie")) {
                String nv = sc.split(";", 2)[0];
                int eq = nv.indexOf('=');
                String name = nv.substring(0, eq);
                String value = nv.substring(eq + 1);
                if (value.isEmpty() || sc.contains("Max-Age=0")) {
                    cookies.remove(name);
                } else {
                    cookies.put(name, value);
                }
            }
            return r;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The value of the first hidden _csrf field in a page. */
    static String csrf(String html) {
        Matcher m = CSRF.matcher(html);
        if (!m.find()) {
            throw new AssertionError("no _csrf field in the page:\n" + html);
        }
        return m.group(1);
    }

    /** Logs in through the login form; returns the response to the POST. */
    HttpResponse<String> login(String user, String password) {
        String form = get("/login").body();
        return post("/login", Map.of("_csrf", csrf(form), "next", "/", "username", user, "password", password));
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    static List<String> header(HttpResponse<?> r, String name) {
        return r.headers().allValues(name);
    }
}
