/**
 * The web admin (issue 4): Javalin 7 + JTE, depending on the {@code db} module only (never on
 * Kafka or Kafka Streams).
 *
 * <h2>Design notes</h2>
 * <ul>
 *   <li><b>One route table</b> ({@link io.dimstream.admin.AdminServer}); packages by feature
 *       ({@code dashboard}, {@code history}, {@code asof}, {@code diff}, {@code integrity},
 *       {@code quarantine}, {@code replay}, {@code dlq}, {@code audit}), each a thin handler over
 *       db's services ({@code io.dimstream.db.read}, {@code io.dimstream.db.status},
 *       {@code io.dimstream.db.jobs}), which know nothing of HTTP. Every page {@code /x} has a JSON
 *       twin under {@code /api} built from the same model record ({@code /replay} has
 *       {@code /api/replays}).</li>
 *   <li><b>Actions</b> are POSTs (admin role; a session also needs its CSRF token): start and
 *       cancel replays ({@code ReplayJobs}), apply or discard a quarantined event
 *       ({@code QuarantineActions}; a refused apply is an outcome shown with its reason, 409), ask
 *       for DLQ re-drives ({@code DlqRecords}), run the integrity check. Each passes the logged-in
 *       user (or the token's name) to db, which writes the {@code dimstream.admin_audit} entry in
 *       the action's own transaction; {@code /audit} lists them. The admin never talks to Kafka:
 *       the running service's workers execute replays and re-drives from those rows. An action
 *       the current state refuses (a job already finished, an event already resolved) is a
 *       {@code Conflict}, 409.</li>
 *   <li><b>Templates</b> are precompiled at build time by jte-maven-plugin ({@code ContentType.Html}),
 *       so every {@code ${...}} is escaped for where it stands and no template uses {@code $unsafe}.
 *       The layout takes a {@code Content}; each page one model record. Presentation geometry (the
 *       SVG timeline) is computed in Java ({@code HistoryView}) from the data alone, not the clock.</li>
 *   <li><b>No inline script or style</b>: CSS and htmx (webjar) come from this origin, so the CSP
 *       {@code script-src 'self'; style-src 'self'} holds; htmx's own inline indicator style and eval
 *       are switched off by its meta config. The dashboard polls {@code /dashboard/table} every 10 s;
 *       a replay job's page polls {@code /replay/{id}/progress} every second, and the fragment of a
 *       finished job carries no trigger, so the polling stops by itself.</li>
 *   <li><b>Raw bytes</b> (a DLQ record's key, value, headers) are shown as UTF-8 text when valid
 *       (without control characters), else hex ({@code web.Bytes}), and escaped like any text.</li>
 *   <li><b>Security</b> ({@code auth}): every request passes {@code Security.check}: headers, then a
 *       bearer token ({@code /api} only) or the session cookie, then for non-GET requests the session's
 *       CSRF token (hidden field {@code _csrf} or header {@code X-CSRF-Token}) and the admin role.
 *       Sessions live in memory, 256-bit ids in an HttpOnly SameSite=Strict cookie, a new id at every
 *       login; the login form is protected by a double-submit token. Passwords: bcrypt
 *       (spring-security-crypto); tokens compared as SHA-256 digests in constant time.</li>
 *   <li><b>SQL</b>: filters are bound parameters, sort is one of two whitelisted words, entity
 *       names are looked up in the config; nothing from a request becomes SQL text.</li>
 *   <li><b>CSV</b> streams the as-of snapshot from a server-side cursor to the response.</li>
 *   <li><b>Integrity</b> reports run from the admin are kept in {@code dimstream.integrity_runs}
 *       (newest 20 per entity), so the status survives a restart and every admin instance agrees;
 *       each run is audited ({@code integrity.run}).</li>
 *   <li><b>Dashboard DLQ figure</b>: records of {@code dimstream.dlq_records} (the mirror of the
 *       entity's dead-letter topic) not re-driven yet; sink rejects are shown apart.</li>
 * </ul>
 */
package io.dimstream.admin;
