/**
 * The read side of an entity's SCD2 table: what the admin UI, the JSON API, CSV download and
 * {@code dimstream check} ask of PostgreSQL. Nothing here knows HTTP or Kafka.
 *
 * <h2>Queries</h2>
 * {@link io.dimstream.db.read.HistoryQueries} (one connection per call, values always bound,
 * identifiers through {@link io.dimstream.db.sql.Sql}, system column names from the entity's
 * {@link io.dimstream.db.entity.SystemColumns}, so renamed columns work):
 * <ul>
 *   <li><b>history(key)</b>: {@code WHERE k1 = ? AND k2 = ? ORDER BY valid_from}. An index scan of the
 *       primary key {@code (key, valid_from)}: the equality on every key column and the order are
 *       both served by it; no sort.</li>
 *   <li><b>asOf(t, prefix, descending, offset, limit)</b>:
 *       {@code valid_from <= t AND (valid_to IS NULL OR valid_to > t) AND NOT is_deleted ORDER BY key
 *       LIMIT limit+1} (DESIGN section 3; with {@code valid-to-current: infinity} the open end is
 *       {@code valid_to > t} alone, {@code EntitySpec.endsAfter}; the extra row says whether a next page exists). The primary
 *       key is walked in key order (forward, or backward for descending) with {@code valid_from <= t}
 *       as an index condition and the rest as a filter, stopping after the page: a first page costs
 *       a few dozen index entries whatever the table's size. OFFSET still reads the rows it skips,
 *       so {@link io.dimstream.db.read.HistoryQueries#asOfAfter asOfAfter} offers keyset paging:
 *       {@code AND (k1, k2) > (?, ?)} (or {@code <} descending), a row comparison the primary key
 *       turns into its start position, so every page costs the same.</li>
 *   <li><b>key prefix</b> (asOf and findKeys): {@code starts_with(k1::text, ?)} on the first key
 *       column. No LIKE, so {@code %} and {@code _} are ordinary characters and nothing needs
 *       escaping. It is a filter on the key-ordered walk, not an index range (a bound parameter in a
 *       non-"C" collation gives PostgreSQL no usable range): a common prefix fills a page at once,
 *       a rare one reads the table until the page is full or the table ends.</li>
 *   <li><b>findKeys(prefix, limit)</b>: {@code SELECT DISTINCT key ... ORDER BY key LIMIT ?}, deleted
 *       keys included. PostgreSQL uses the primary key (index-only scan + Unique) when the prefix is
 *       common, else a hash aggregate over a scan.</li>
 *   <li><b>streamAsOf(t, sink)</b>: the as-of predicate in key order through a server-side cursor
 *       (autocommit off, fetch size {@value io.dimstream.db.read.HistoryQueries#STREAM_FETCH_SIZE}),
 *       so a snapshot of any size goes to CSV in constant memory. The transaction lasts as long as
 *       the sink takes: the admin writes to a temporary file, then sends it. A full snapshot reads
 *       most of the table; expect a sequential scan and a sort, or the primary key in order.</li>
 *   <li><b>diff(from, to)</b>: one statement, the as-of sets at both instants (two CTEs) FULL JOINed
 *       on the key, keeping pairs whose {@code valid_from} differs: one side missing is added or
 *       removed, both present is changed; the changed columns (tracked and type-1) are compared in
 *       Java on the two rows already fetched. Two scans and a hash full join; cost grows with the
 *       table, not with the number of changes.</li>
 *   <li><b>diffSummary(from, to)</b>: the same FULL JOIN, counted in the database: keys added,
 *       removed and changed, and per attribute column {@code count(*) FILTER (WHERE a.c IS
 *       DISTINCT FROM b.c)} among the changed keys; over every key (never cut). The same cost as
 *       diff, paid a second time by the admin's diff page.</li>
 *   <li><b>steps(at)</b>: the as-of stepper's instants, the first, previous, current (latest at or
 *       before {@code at}), next and last distinct {@code valid_from}, as scalar subqueries of
 *       {@code min}/{@code max}. No index leads with {@code valid_from}, so each reads the table's
 *       {@code valid_from} column (a scan per subquery).</li>
 * </ul>
 *
 * <h2>A key in transaction time</h2>
 * {@link io.dimstream.db.read.KnownHistory} (entities with {@code transaction-time}, docs/semantics.md
 * "Transaction time"), for the history page's {@code known=} and its corrections list:
 * <ul>
 *   <li><b>history(key, known)</b>: one {@code UNION ALL} of the key's table rows with
 *       {@code coalesce(known_from, '-infinity') <= known} and its {@code T_superseded} images with
 *       {@code known_from <= known < known_to} (read by column name through
 *       {@code jsonb_populate_record(NULL::T, row_image)}), {@code valid_to} as known then
 *       ({@code CASE WHEN end_known_from > known THEN NULL ELSE valid_to END}), ordered by
 *       {@code valid_from}: the primary key and {@code T_superseded}'s index on (key, valid_from). The
 *       instant is bound once, in a one-row CTE. Its versions valid at v are the key's rows of
 *       {@code T_as_of(v, known)} ({@code KnownHistoryTest} checks it).</li>
 *   <li><b>corrections(key)</b>: the same union without the instant (every image ever believed), then in
 *       Java: each superseded image, by {@code known_to}, with the images whose {@code known_from} is its
 *       {@code known_to} (written by the transaction that superseded it). A key's images are few.</li>
 * </ul>
 *
 * <h2>A shadow table against the live one</h2>
 * {@link io.dimstream.db.read.ShadowDiff#compute} (in the caller's transaction, so a preview can
 * merge first and roll back): one {@code FULL JOIN} of the two tables on the primary key
 * {@code (key, valid_from)} keeps the versions one side lacks or whose {@code valid_to},
 * {@code is_deleted}, {@code record_hash} or type-1 columns differ ({@code IS DISTINCT FROM}: NULLs
 * compare equal), materialized once; its distinct keys are classified added / removed / changed by
 * {@code NOT EXISTS} probes of the primary keys. Two scans and a hash full join (600,000 versions
 * against 581,000, 21,000 differing: 4.7 s on the shared 2-core test machine under load, where
 * {@code EXCEPT} both ways took 22 to 28 s). Counts over everything; only the first
 * {@code limit} keys in key order come back, each differing version fetched whole by primary key
 * {@code (key, valid_from)}. Cost grows with the tables, not with the number of differences.
 *
 * <h2>A key's incidents</h2>
 * {@link io.dimstream.db.read.KeyIncidents} finds one key's rows in {@code dimstream.quarantine}
 * ({@code event_key ->> column = ?} for each key column) and in the DLQ mirror
 * {@code dimstream.dlq_records} (the raw record key equal to the key's UTF-8 text), for the
 * history page. Both read the entity's rows through their indexes on {@code entity} and filter.
 *
 * <h2>Integrity</h2>
 * {@link io.dimstream.db.read.IntegrityChecker} runs one statement: a single window pass
 * ({@code row_number}, {@code LAG}, {@code LEAD}, {@code count(*) FILTER} over
 * {@code PARTITION BY key ORDER BY valid_from}), whose order the primary key provides, plus one
 * window by {@code surrogate_key} (shared surrogate keys; one sort, as the table has no index on
 * it by default), keeps the rows breaking any rule, and only those are unpivoted into findings, capped per kind with true
 * totals kept. No self-joins: one read of the table plus a count. The checker vouches for tables
 * made by hand too, so it does not rely on the constraints dimstream creates.
 *
 * <h2>Objects in the database</h2>
 * {@link io.dimstream.db.schema.EntityTables} also creates {@code <table>_current} (a view of the
 * current rows) and {@code <table>_as_of(timestamptz)} (the same predicate as asOf) for BI tools,
 * dbt models and temporal joins of fact tables by event time or by {@code surrogate_key}.
 */
package io.dimstream.db.read;
