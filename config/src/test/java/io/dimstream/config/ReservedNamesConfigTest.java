package io.dimstream.config;

import static io.dimstream.config.DimstreamConfigTest.refusal;
import static io.dimstream.config.DimstreamConfigTest.parse;
import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.db.entity.EntitySpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Names PostgreSQL would later refuse or change are refused at startup, naming the field: column
 * names the writer's own SQL uses (H5), and identifiers PostgreSQL would cut to 63 bytes (L1).
 */
class ReservedNamesConfigTest {

    private static final String RESERVED = "beyond, cut, dup, event_seq, fast, in_version, late, mem_in_version, mem_seq, new_seq, new_sk, newest, newest_deleted, newest_hash, newest_seq, no_row, old_hash, p_time, prev_deleted, prev_exists, prev_hash, prev_seq, rstart, run_no, run_start, single, t0, valid_from, valid_to, win";

    private static String config(String table, String tracked, String systemColumns) {
        return """
                postgres:
                  url: embedded
                entities:
                  - name: customer
                    topic: crm.customers
                    table: %s
                    key: [customer_id]
                    tracked: ["%s"]
                    columns: {customer_id: text, "%s": text}
                """.formatted(table, tracked, tracked) + (systemColumns == null ? "" : "    system-columns: " + systemColumns + "\n");
    }

    @Test
    void everyWorkColumnOfTheWriterIsRefusedAsAColumnName() {
        List<String> refusals = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (String name : EntitySpec.WORK_COLUMNS) {
            // a work column that is also a system column's default name: the system column renamed, else that clash is named first
            String system = name.equals("valid_from") || name.equals("valid_to") ? "{valid_from: start_ts, valid_to: end_ts}"
                    : name.equals("event_seq") ? "{event_seq: arrival_seq}" : null;
            refusals.add(refusal(config("dim_customer", name, system)));
            expected.add("config test.yml: entities[0].tracked: column '" + name + "' is a name the writer's SQL uses for a column "
                    + "of its own (reserved: " + RESERVED + ")");
        }
        assertThat(refusals).isEqualTo(expected);
    }

    @Test
    void aColumnNamedLikeARenamedSystemColumnsDefaultIsRefused() {
        assertThat(refusal(config("dim_customer", "valid_from", "{valid_from: start_ts}")))
                .isEqualTo("config test.yml: entities[0].tracked: column 'valid_from' is a name the writer's SQL uses for a column "
                        + "of its own (reserved: " + RESERVED + ")");
    }

    @Test
    void aSystemColumnRenamedToAWorkOrMemoryColumnIsRefused() {
        String all = "beyond, cut, dup, event_seq, event_time, fast, in_version, is_deleted, late, mem_in_version, mem_seq, new_seq, new_sk, newest, newest_deleted, newest_hash, newest_seq, no_row, old_hash, p_time, prev_deleted, prev_exists, prev_hash, prev_seq, pruned_to, record_hash, rstart, run_no, run_start, seq, single, source_offset, source_partition, source_topic, surrogate_key, t0, valid_from, valid_to, win";
        assertThat(refusal(config("dim_customer", "email", "{is_current: fast}")))
                .isEqualTo("config test.yml: entities[0].system-columns.is_current: 'fast' is a name the writer's SQL uses for a "
                        + "column of its own (reserved: " + all + ")");
        assertThat(refusal(config("dim_customer", "email", "{loaded_at: seq}")))
                .isEqualTo("config test.yml: entities[0].system-columns.loaded_at: 'seq' is a name the writer's SQL uses for a "
                        + "column of its own (reserved: " + all + ")");
    }

    @Test
    void anEventMemoryColumnIsRefusedAsAColumnName() {
        assertThat(refusal(config("dim_customer", "pruned_to", null)))
                .isEqualTo("config test.yml: entities[0].tracked: column 'pruned_to' clashes with a system column");
    }

    @Test
    void aColumnNameLongerThan63BytesIsRefused() {
        String seventy = "c".repeat(70);
        assertThat(refusal(config("dim_customer", seventy, null))).isEqualTo("config test.yml: entities[0].tracked: column '"
                + seventy + "' is 70 bytes long; PostgreSQL cuts names to 63 bytes, so the database would know it by another name");
        String accents = "\u00e9".repeat(32);
        assertThat(refusal(config("dim_customer", accents, null))).isEqualTo("config test.yml: entities[0].tracked: column '"
                + accents + "' is 64 bytes long; PostgreSQL cuts names to 63 bytes, so the database would know it by another name");
        assertThat(parse(config("dim_customer", "c".repeat(63), null)).entity("customer").tracked()).isEqualTo(List.of("c".repeat(63)));
    }

    @Test
    void aRenamedSystemColumnLongerThan63BytesIsRefused() {
        String long64 = "v".repeat(64);
        assertThat(refusal(config("dim_customer", "email", "{valid_from: " + long64 + "}")))
                .isEqualTo("config test.yml: entities[0].system-columns.valid_from: column '" + long64 + "' is 64 bytes long; "
                        + "PostgreSQL cuts names to 63 bytes, so the database would know it by another name");
    }

    @Test
    void aTableNameTooLongForTheNamesDerivedFromItIsRefused() {
        String fifty = "t".repeat(50);
        assertThat(refusal(config(fifty, "email", null))).isEqualTo("config test.yml: entities[0].table: '" + fifty + "' is 50 bytes "
                + "long; at most 49 fit, since dimstream names objects after the table (the longest, '" + fifty + "_surrogate_key', "
                + "must fit the 63 bytes PostgreSQL keeps of a name)");
        assertThat(parse(config("s".repeat(63) + "." + "t".repeat(49), "email", null)).entity("customer").table())
                .isEqualTo("s".repeat(63) + "." + "t".repeat(49));
        assertThat(refusal(config("s".repeat(64) + ".dim", "email", null))).isEqualTo("config test.yml: entities[0].table: schema '"
                + "s".repeat(64) + "' is 64 bytes long; PostgreSQL cuts names to 63 bytes, so the database would know it by another name");
    }
}
