package io.dimstream.db.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import io.dimstream.db.event.Event;
import io.dimstream.db.schema.EntityTables;
import io.dimstream.db.testing.TestPostgres;
import java.sql.SQLException;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The worked YDB example through the real writer: the table equals the expected file, row for row. */
class YdbExampleTest {

    private final DataSource ds = TestPostgres.dataSource();
    private final Scd2Writer writer = new Scd2Writer(ds);

    @Test
    void outOfOrderExampleAppliedAsOneBatchGivesTheExpectedTable() throws SQLException {
        EntitySpec spec = freshEntity();

        writer.apply(spec, Fixtures.ydbEvents());

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(Fixtures.ydbExpected(spec));
    }

    @Test
    void outOfOrderExampleAppliedOneEventPerBatchGivesTheExpectedTable() throws SQLException {
        EntitySpec spec = freshEntity();

        for (Event e : Fixtures.ydbEvents()) {
            writer.apply(spec, List.of(e));
        }

        assertThat(EntityTableReader.rows(ds, spec)).isEqualTo(Fixtures.ydbExpected(spec));
    }

    @Test
    void exampleAppliedTwiceLeavesTheTableAndItsSurrogateKeysUnchanged() throws SQLException {
        EntitySpec spec = freshEntity();
        writer.apply(spec, Fixtures.ydbEvents());
        List<EntityTableReader.StoredRow> before = EntityTableReader.withSurrogateKeys(ds, spec);

        for (Event e : Fixtures.ydbEvents()) {
            writer.apply(spec, List.of(e));
        }

        assertThat(EntityTableReader.withSurrogateKeys(ds, spec)).isEqualTo(before);
        assertThat(before.stream().map(EntityTableReader.StoredRow::row).toList()).isEqualTo(Fixtures.ydbExpected(spec));
    }

    private EntitySpec freshEntity() throws SQLException {
        String table = Fixtures.uniqueTable("ydb_customer");
        EntitySpec spec = Fixtures.ydb(table, table);
        EntityTables.ensure(ds, spec);
        return spec;
    }
}
