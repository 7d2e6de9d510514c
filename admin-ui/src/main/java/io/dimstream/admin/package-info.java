/**
 * The web admin (issue 4): Javalin 7 + JTE, depending on the {@code db} module only (never on
 * Kafka or Kafka Streams).
 *
 * <h2>Design notes</h2>
 * <ul>
 *   <li><b>One route table</b> ({@link io.dimstream.admin.AdminServer}, kept as data:
 *       {@code AdminServer.routes()} lists every route with who may call it, {@code Access}:
 *       public, viewer, admin, session; the security tests walk it, so a new route is tested
 *       without anyone adding it to a list); packages by feature
 *       ({@code login}, {@code dashboard}, {@code history}, {@code asof}, {@code diff}, {@code integrity},
 *       {@code quarantine}, {@code replay}, {@code dlq}, {@code audit}, {@code columns}, {@code erase}), each a thin handler over
 *       db's services ({@code io.dimstream.db.read}, {@code io.dimstream.db.status},
 *       {@code io.dimstream.db.jobs}), which know nothing of HTTP. Every page {@code /x} has a JSON
 *       twin under {@code /api} built from the same model record ({@code /replay} has
 *       {@code /api/replays}).</li>
 *   <li><b>Columns</b> ({@code /columns/{entity}}, twin {@code /api/columns/{entity}}): every column
 *       of the entity in the order dimstream reads them (the config's spec merged with
 *       {@code dimstream.entity_columns}), with its type (modifiers included), role (key, tracked,
 *       type-1, system column) and origin: {@code config}, or added while running at the catalog's
 *       instant from the change that first carried it, and a widened type's former type and
 *       instant ({@code db.schema.ColumnOrigins}). Unlike the other pages, a
 *       failure to read the catalog is this page's error, not the config's columns shown as if
 *       nothing had been added. The dashboard's columns figure (the entity's own columns, how many
 *       were added while running) links there; {@code EntityCatalog.specs()} gives the merged specs
 *       as {@code spec(name)} does, and a handler that only checks an entity's name asks
 *       {@code configSpec(name)}, which reads nothing.</li>
 *   <li><b>Actions</b> are POSTs (admin role; a session also needs its CSRF token): start and
 *       cancel replays ({@code ReplayJobs}), apply or discard a quarantined event
 *       ({@code QuarantineActions}; a refused apply is an outcome shown with its reason, 409), ask
 *       for DLQ re-drives ({@code DlqRecords}), run the integrity check, erase a key under its history
 *       ({@code erase.ErasePage} over {@code Erasure}: a ticked confirmation, the outcome never names the
 *       key). Each passes the logged-in
 *       user (or the token's name) to db, which writes the {@code dimstream.admin_audit} entry in
 *       the action's own transaction; {@code /audit} lists them. The admin never talks to Kafka:
 *       the running service's workers execute replays and re-drives from those rows. An action
 *       the current state refuses (a job already finished, an event already resolved) is a
 *       {@code Conflict}, 409.</li>
 *   <li><b>Templates</b> are precompiled at build time by jte-maven-plugin ({@code ContentType.Html}),
 *       so every {@code ${...}} is escaped for where it stands and no template uses {@code $unsafe}.
 *       The layout takes a {@code Content}; each page one model record. Presentation geometry (the
 *       history's SVG timeline) is computed in Java ({@code history.Timeline}) from the data, the
 *       URL's window and the clock, and drawn by the template; its zoom and pan are links, so every
 *       state is a URL. The history "as known at" ({@code known=}, {@code history.KnownAt} over
 *       {@code db.read.KnownHistory}) is a URL parameter too, kept by every link and form of the
 *       page; the corrections list is read beside the history and matched to the versions shown
 *       by image ({@code valid_from}, {@code known_from}, {@code known_to}), so the marks need no
 *       more SQL.</li>
 *   <li><b>Opening on the data</b>: a page without instants in its URL opens where the data's
 *       changes are, not on the clock alone, and says so in words: the history's default window
 *       fits the key's versions (an open version runs to now only while now is near them,
 *       {@code Timeline.defaultWindow}; zoom centres on the middle version start), the diff compares
 *       the day before the table's latest change with it ({@code DiffPage}), the dashboard's charts
 *       take the smallest window holding the sink's recorded batches ({@code Trends.fit}). Wide tables
 *       scroll in their own box; DLQ values fold past {@code BytesText.INLINE_CHARS} characters and
 *       wrap in columns of a readable least width, so 50 records stay a page, not 15,000 px.</li>
 *   <li><b>No inline script or style</b>: CSS, htmx (webjar) and the history page's timeline script
 *       ({@code static/history.js}, an enhancement only: the hover and keyboard readout, drag-to-zoom
 *       that navigates to the dragged window's URL; it sets SVG attributes, never a style
 *       attribute) come from this origin, so the CSP
 *       {@code script-src 'self'; style-src 'self'} holds; htmx's own inline indicator style and eval
 *       are switched off by its meta config. The dashboard polls {@code /dashboard/table} every 10 s;
 *       a replay job's page polls {@code /replay/{id}/progress} every second, and the fragment of a
 *       finished job carries no trigger, so the polling stops by itself. Polls send
 *       {@code X-Dimstream-Poll} ({@code hx-headers}): they do not keep a session alive.</li>
 *   <li><b>Raw bytes</b> (a DLQ record's key, value, headers) are shown as UTF-8 text when valid
 *       (without control characters), else hex ({@code web.BytesText}), and escaped like any text. A
 *       page shows previews cut in the database (2 KB of a key or value, 256 bytes of ten header
 *       values): 50 records near Kafka's 1 MB limit would otherwise make a 100 MB page; the whole
 *       key or value is a download ({@code /dlq/{id}/key|value}, {@code application/octet-stream}).</li>
 *   <li><b>Security</b> ({@code auth}): every request passes {@code Security.check}: headers, then a
 *       bearer token ({@code /api} only) or the session cookie, then for non-GET requests the session's
 *       CSRF token (hidden field {@code _csrf} or header {@code X-CSRF-Token}) and the admin role.
 *       Public are only {@code /login} and static assets whose path is plain segments
 *       ({@code /static/../api} is not). Sessions live in memory, 256-bit ids in an HttpOnly
 *       SameSite=Strict cookie (Secure unless {@code secure-cookie: false}), a new id at every login
 *       (the browser's old session ends), ended by the idle timeout or the absolute lifetime, at most
 *       20 per user and 10,000 in all ({@code Sessions}); the login form ({@code login.LoginPages})
 *       is protected by a double-submit token. Passwords: bcrypt (spring-security-crypto; over 72 bytes refused
 *       before bcrypt); tokens compared as SHA-256 digests in constant time.</li>
 *   <li><b>Login throttling</b> ({@code LoginThrottle}): 5 failures per (user name, client) and 20
 *       per client in a sliding 15-minute window. The attempt is reserved (counted as a failure)
 *       in the same synchronized step as the check, before bcrypt, and a correct password takes it
 *       back: parallel requests cannot all pass the check first. Failures lock only their own
 *       client, so nobody can lock a user out of another client, and a lock ends 15 minutes after
 *       the failure that set it. The client ({@code ClientAddress}) is the remote address, or,
 *       when the connection comes from {@code admin.trusted-proxies}, the first untrusted hop of
 *       {@code X-Forwarded-For} from the right; IPv6 counts by /64. At most 10,000 keys (LRU).
 *       User names reach the log through {@code LogText} (CR, LF and other control or format
 *       characters escaped).</li>
 *   <li><b>Errors</b> ({@code web.Errors}): a refusal names the parameter (400, also for an
 *       instant outside years 1 to 9999), 404, 409; a statement cut by the timeout 503; anything
 *       else 500 with an error id only, the exception logged under it. What Jetty refuses before
 *       Javalin (a bad URI, a header too large) is answered by {@code web.JettyErrors}: one plain
 *       line with the same security headers. Every response carries the headers, HSTS when
 *       cookies are Secure.</li>
 *   <li><b>Bounded database work</b>: the admin wraps its DataSource in
 *       {@code db.connect.StatementTimeouts} ({@code admin.statement-timeout}, default 30 s), set on
 *       each borrowed connection and reset when it goes back: per borrow rather than per pool,
 *       because {@code demo} hands the admin the pipeline's pool, and rather than per transaction,
 *       because most queries run in autocommit.</li>
 *   <li><b>Layers</b>: the feature packages (and {@code login}) use {@code web} (rendering, errors,
 *       parameters) and {@code auth} (who is asking); {@code web} uses {@code auth} for the
 *       principal and the security headers; {@code auth} uses neither, so the security model can be
 *       read and tested alone. {@code ArchitectureTest} (e2e) keeps it so: no package cycles.</li>
 *   <li><b>SQL</b>: filters are bound parameters, sort is one of two whitelisted words, entity
 *       names are looked up in the config; nothing from a request becomes SQL text.</li>
 *   <li><b>CSV</b>: the as-of snapshot is read through a server-side cursor into a temporary file
 *       (at most {@code admin.csv-max-mib}), the transaction ends, and only then is the file sent:
 *       a slow reader holds a thread and a file, never a pooled connection or an open transaction;
 *       at most 4 exports at once. Formulas are defused ({@code asof.Csv}); {@code ?raw=1} writes
 *       values exactly.</li>
 *   <li><b>Integrity</b> reports run from the admin are kept in {@code dimstream.integrity_runs}
 *       (newest 20 per entity), so the status survives a restart and every admin instance agrees;
 *       each run is audited ({@code integrity.run}).</li>
 *   <li><b>Dashboard DLQ figure</b>: records of {@code dimstream.dlq_records} (the mirror of the
 *       entity's dead-letter topic) not re-driven yet; sink rejects are shown apart.</li>
 * </ul>
 */
package io.dimstream.admin;
