package io.dimstream.admin.web;

import io.dimstream.admin.auth.Security;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * The answer to what Jetty refuses before Javalin sees it (a malformed URI such as {@code /%}, a
 * header too large, an ambiguous path such as {@code /static/../api}): one plain line,
 * {@code 400 Bad Request}, with the security headers and without a stack trace, a cause or the
 * server's version.
 */
public final class JettyErrors extends ErrorHandler {

    private final boolean secure;

    public JettyErrors(boolean secure) {
        this.secure = secure;
    }

    private static String body(int status) {
        String reason = HttpStatus.getMessage(status);
        return status + " " + (reason == null ? "Error" : reason) + "\n";
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause, Callback callback) {
        HttpFields.Mutable h = response.getHeaders();
        Security.headers(null, secure).forEach(h::put);
        h.put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.write(true, ByteBuffer.wrap(body(code).getBytes(StandardCharsets.UTF_8)), callback);
    }

    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        Security.headers(null, secure).forEach((name, value) -> fields.put(new HttpField(name, value)));
        fields.put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        return ByteBuffer.wrap(body(status).getBytes(StandardCharsets.UTF_8));
    }
}
