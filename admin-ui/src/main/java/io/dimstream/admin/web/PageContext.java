package io.dimstream.admin.web;

import java.util.List;

/**
 * What every page's layout needs: who is logged in, the session's CSRF token (the hidden field
 * of every form), the entities for the navigation, and which section is open.
 */
public record PageContext(String user, String role, boolean admin, String csrfToken, List<String> entities, String section,
                          String entity) {

    public PageContext {
        entities = List.copyOf(entities);
    }

    /** Whether the navigation link of {@code section} for {@code entityName} is the open page. */
    public boolean on(String section, String entityName) {
        return this.section.equals(section) && this.entity.equals(entityName);
    }
}
