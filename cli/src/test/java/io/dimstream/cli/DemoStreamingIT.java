package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * {@code dimstream demo --exit}: an embedded broker and PostgreSQL, the pipeline, a generated
 * burst of 300 events; the printed summary is compared whole (addresses and ports masked). The
 * feed is seeded and a key's events keep their order through the pipeline, so the counts and
 * the table are the same on every run; that they are right is PipelineIT's job (reference model).
 */
class DemoStreamingIT {

    @Test
    void theStreamingDemoRunsABurstThroughThePipelineAndSaysWhereToLook() {
        CliRun run = CliRun.of("demo", "--events", "300", "--exit", "--metrics-port", "-1");

        assertThat(run.exitCode()).isZero();
        String out = run.out()
                .replaceAll("jdbc:postgresql://localhost:\\d+/", "jdbc:postgresql://localhost:<port>/")
                .replaceAll("127\\.0\\.0\\.1:\\d+", "127.0.0.1:<port>");
        assertThat(out).isEqualTo("""
                starting an embedded Kafka broker, an embedded PostgreSQL and the pipeline ...
                producing 300 generated customer events to crm.customers ...
                events by class: {changed=145, deleted=16, dlq=6, duplicate=4, late=6, new=50, unchanged=73}
                table dim_customer: 218 versions, 47 current rows, 3 deleted keys
                history of C0001:
                  2025-08-01T04:27:11Z .. 2025-08-01T05:34:01Z                 {email=omar.haddad@example.com, full_name=Omar Haddad, country=JP, city=Osaka, loyalty_tier=bronze, last_login=1754022431}
                  2025-08-01T05:34:01Z .. 2025-08-01T07:32:30Z        deleted  {email=omar.haddad@example.com, full_name=Omar Haddad, country=JP, city=Osaka, loyalty_tier=bronze, last_login=1754022431}
                  2025-08-01T07:32:30Z .. 2025-08-01T08:04:28Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=DE, city=Berlin, loyalty_tier=silver, last_login=1754033550}
                  2025-08-01T08:04:28Z .. 2025-08-01T16:17:14Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=JP, city=Osaka, loyalty_tier=silver, last_login=1754036768}
                  2025-08-01T16:17:14Z .. 2025-08-01T19:09:57Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=JP, city=Osaka, loyalty_tier=platinum, last_login=1754066782}
                  2025-08-01T19:09:57Z .. 2025-08-01T21:29:39Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=JP, city=Osaka, loyalty_tier=gold, last_login=1754075397}
                  2025-08-01T21:29:39Z .. 2025-08-02T00:52:01Z                 {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=JP, city=Osaka, loyalty_tier=bronze, last_login=1754083779}
                  2025-08-02T00:52:01Z ..                             current  {email=ivan.okafor@example.com, full_name=Ivan Okafor, country=US, city=Austin, loyalty_tier=bronze, last_login=1754095921}
                where to look:
                  PostgreSQL: jdbc:postgresql://localhost:<port>/postgres?user=postgres  (tables dim_customer, dim_customer_current, function dim_customer_as_of(timestamptz))
                  Kafka: 127.0.0.1:<port>  topics crm.customers (source), crm.customers.dlq (bad records), dimstream.customer.changes (changes)
                """);
    }
}
