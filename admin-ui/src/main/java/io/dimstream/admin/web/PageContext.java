package io.dimstream.admin.web;

import java.util.List;

/**
 * What every page's layout needs: who is logged in, the session's CSRF token (the hidden field
 * of every form), the entities for the navigation, and which section is open.
 */
public record PageContext(String user, String role, boolean admin, String csrfToken, List<String> entities, String section) {

    public PageContext {
        entities = List.copyOf(entities);
    }
}
