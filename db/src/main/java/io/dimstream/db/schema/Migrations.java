package io.dimstream.db.schema;

import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;

/** Brings dimstream's own schema ({@value #SCHEMA}) up to date with Flyway; runs at every start. */
public final class Migrations {

    public static final String SCHEMA = "dimstream";

    private Migrations() {
    }

    public static MigrateResult migrate(DataSource ds) {
        return Flyway.configure()
                .dataSource(ds)
                .schemas(SCHEMA)
                .defaultSchema(SCHEMA)
                .createSchemas(true)
                .locations("classpath:db/migration")
                .load()
                .migrate();
    }
}
