package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code admin:} section is read by the verbs that use it ({@code admin} serves it, {@code config}
 * validates the whole file) and by no other: an operator runs {@code erase}, {@code load} or
 * {@code dbt-sources} without the admin's secrets in the environment. Before, every verb refused
 * such a config, naming the admin's unset variables (found by a user's try of {@code erase}).
 */
class AdminSectionVerbsTest {

    @TempDir
    Path dir;

    @Test
    void aVerbThatServesNoAdminUiNeedsNoneOfItsVariablesAndConfigStillNamesThem() throws Exception {
        String unset = "DIMSTREAM_TEST_UNSET_ADMIN_SECRET";
        assertThat(System.getenv(unset)).as("a variable no environment sets").isNull();
        Path file = Files.writeString(dir.resolve("c.yml"), """
                kafka: {bootstrap-servers: "kafka:9092"}
                postgres: {url: "jdbc:postgresql://db:5432/dim", user: dim}
                entities:
                  - name: customer
                    topic: crm.customers
                    table: dim_customer
                    key: [customer_id]
                    tracked: [email]
                    columns: {customer_id: text, email: text}
                admin:
                  users: [{name: ops, password: "${%s}"}]
                """.formatted(unset));

        CliRun dbt = CliRun.of("dbt-sources", "--config", file.toString(), "--offline");
        assertThat(dbt.err()).isEmpty();
        assertThat(dbt.exitCode()).isZero();
        assertThat(dbt.out()).contains("\nversion: 2\nsources:\n  - name: dimstream\n");

        CliRun config = CliRun.of("config", "--config", file.toString(), "--offline");
        assertThat(config.exitCode()).isEqualTo(2);
        assertThat(config.err()).isEqualTo("dimstream config: config " + file + ": admin.users[0].password: environment variable "
                + unset + " is not set\n");
    }
}
