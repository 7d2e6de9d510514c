package io.dimstream.cli;

import io.dimstream.config.DimstreamConfig;
import io.dimstream.config.model.EntityConfig;
import io.dimstream.config.model.PostgresConfig;
import io.dimstream.db.secrets.Secrets;
import io.dimstream.db.connect.Databases;
import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.schema.ColumnOrigins;
import io.dimstream.db.schema.EvolvedColumns;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code dimstream config} prints after the config: per entity, what the catalog
 * ({@code dimstream.entity_columns}) changed: the columns added while running, and the columns whose
 * type was widened while running, each with its type now, its role and its origin (when added, from
 * which change; from which type widened, when), in the entity's column order. Read over one connection that gives up after
 * {@link #TIMEOUT}. Every line starts with {@code #}, so the output stays the YAML it was. When the
 * catalog cannot be read (nothing answers, the login is refused, dimstream's schema is not there,
 * the embedded database) one line says so and why: the config itself was still checked.
 */
final class EvolvedColumnsPrinter {

    /** How long connecting, logging in and each reply may take. */
    static final Duration TIMEOUT = Duration.ofSeconds(3);

    private static final List<String> HEADER = List.of("column", "type", "role", "origin");

    private EvolvedColumnsPrinter() {
    }

    static void print(PrintWriter out, DimstreamConfig config) {
        PostgresConfig pg = config.postgres();
        if (pg.embedded()) {
            out.println("# columns added or widened while running: not read: postgres.url is embedded, a database that exists only inside "
                    + "a running dimstream");
            return;
        }
        String url = Secrets.mask(pg.url());
        Map<String, List<List<String>>> byEntity = new LinkedHashMap<>();
        try (Connection c = Databases.connectOnce(pg.url(), pg.user(), pg.password(), TIMEOUT)) {
            c.setReadOnly(true);
            for (EntityConfig e : config.entities()) {
                EntitySpec spec = e.toEntitySpec();
                List<List<String>> rows = new ArrayList<>();
                for (ColumnOrigins.Column col : ColumnOrigins.of(spec, EvolvedColumns.list(c, spec.name()))) {
                    if (col.fromCatalog()) {
                        rows.add(List.of(visible(col.name()), col.sqlType(), col.role().label(), visible(col.describe())));
                    }
                }
                byEntity.put(e.name(), rows);
            }
        } catch (SQLException e) {
            out.println("# columns added or widened while running: not read from PostgreSQL at " + url + ": "
                    + Secrets.mask(String.valueOf(e.getMessage())) + " (SQL state " + e.getSQLState() + "); --offline skips this");
            return;
        }
        out.println("# columns added or widened while running (dimstream.entity_columns at " + url + "):");
        byEntity.forEach((entity, rows) -> {
            if (rows.isEmpty()) {
                out.println("# " + visible(entity) + ": none");
                return;
            }
            out.println("# " + visible(entity) + ":");
            List<List<String>> table = new ArrayList<>();
            table.add(HEADER);
            table.addAll(rows);
            int[] width = new int[HEADER.size()];
            for (List<String> row : table) {
                for (int i = 0; i < width.length; i++) {
                    width[i] = Math.max(width[i], row.get(i).length());
                }
            }
            for (List<String> row : table) {
                StringBuilder line = new StringBuilder("#   ");
                for (int i = 0; i < row.size(); i++) {
                    line.append(row.get(i)).append(" ".repeat(width[i] - row.get(i).length())).append(i + 1 < row.size() ? "  " : "");
                }
                out.println(line.toString().stripTrailing());
            }
        });
    }

    /** A name as one line of a terminal: control characters (a newline in a source's field name) as {@code \\uXXXX}. */
    static String visible(String s) {
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp) || Character.getType(cp) == Character.FORMAT) {
                b.append(String.format(java.util.Locale.ROOT, "\\u%04X", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return b.toString();
    }
}
