package io.dimstream.admin.web;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.javalin.http.Context;
import java.util.Map;

/**
 * Renders the JTE templates, precompiled at build time (jte-maven-plugin, {@code ContentType.Html}:
 * every {@code ${...}} is escaped for where it stands; no template uses {@code $unsafe}).
 */
public final class Views {

    private final TemplateEngine engine = TemplateEngine.createPrecompiled(ContentType.Html);

    /** Renders {@code template} with the named parameters into the response as HTML. */
    public void render(Context ctx, String template, Map<String, Object> params) {
        StringOutput out = new StringOutput();
        engine.render(template, params, out);
        ctx.contentType("text/html; charset=utf-8").result(out.toString());
    }
}
