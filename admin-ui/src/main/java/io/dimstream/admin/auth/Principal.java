package io.dimstream.admin.auth;

import io.dimstream.config.model.AdminConfig.Role;

/**
 * Who made a request.
 *
 * @param bearer true when authenticated by an API token (no session, so no CSRF token needed)
 */
public record Principal(String name, Role role, boolean bearer) {

    public boolean admin() {
        return role == Role.ADMIN;
    }
}
