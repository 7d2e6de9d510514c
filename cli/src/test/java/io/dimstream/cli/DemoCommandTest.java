package io.dimstream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Runs the whole demo (embedded PostgreSQL, bundled sample) and compares everything it printed. */
class DemoCommandTest {

    @Test
    void demoLoadsTheSampleAndPrintsCountsAndTheHistoryOfEveryCustomer() {
        CliRun run = CliRun.of("demo", "--file");

        assertThat(run.err()).isEmpty();
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).containsPattern("\\nJDBC URL: jdbc:postgresql://localhost:\\d+/postgres\\?user=postgres\\n$");
        // C2: deleted, resurrected, a late upsert before a second delete; C4: a same-time tie (the later line wins)
        // and a late change; C5: a late change inside a version; C7: out of order and a re-assertion (type 1 only);
        // C8: an event beyond the 30-day horizon goes to quarantine; C10: a delete of an unknown key leaves no row.
        // The counts are the lines' one at a time, whatever the batch size (LoadBatchingTest).
        assertThat(run.out().replaceFirst("JDBC URL: .*\\n", "JDBC URL: <url>\n")).isEqualTo("""
                starting embedded PostgreSQL ...
                loaded demo/customers.jsonl (38 lines) into entity customer, table dim_customer:
                applied            34
                new                 8
                changed            12
                deleted             5
                unchanged           4
                late                5
                duplicates          2
                quarantined         1
                rejected            1
                line 9: not valid JSON: Unexpected end-of-input: was expecting closing quote for a string value

                history of every customer (table dim_customer):
                customer_id  valid_from            valid_to              is_current  is_deleted  email                     full_name     country  city        loyalty_tier  last_login
                -----------  --------------------  --------------------  ----------  ----------  ------------------------  ------------  -------  ----------  ------------  ----------
                C1           2025-08-01T09:00:00Z  2025-08-05T14:00:00Z  false       false       alice@example.com         Alice Martin  FR       Paris       silver        1754038800
                C1           2025-08-05T14:00:00Z  2025-08-10T11:00:00Z  false       false       alice@example.com         Alice Martin  FR       Lyon        silver        1754467200
                C1           2025-08-10T11:00:00Z  2025-08-14T08:00:00Z  false       false       alice@example.com         Alice Martin  FR       Lyon        gold          1754823600
                C1           2025-08-14T08:00:00Z                        true        false       alice.martin@example.com  Alice Martin  FR       Lyon        gold          1755543600
                C2           2025-08-01T09:05:00Z  2025-08-07T18:00:00Z  false       false       bob@example.com           Bob Jones     GB       London      bronze        1754039100
                C2           2025-08-07T18:00:00Z  2025-08-12T09:30:00Z  false       true        bob@example.com           Bob Jones     GB       London      bronze        1754039100
                C2           2025-08-12T09:30:00Z  2025-08-14T12:00:00Z  false       false       bob@example.com           Bob Jones     GB       London      silver        1754991000
                C2           2025-08-14T12:00:00Z  2025-08-16T12:00:00Z  false       false       bob.jones@example.com     Bob Jones     GB       Leeds       silver        1755172800
                C2           2025-08-16T12:00:00Z                        false       true        bob.jones@example.com     Bob Jones     GB       Leeds       silver        1755172800
                C3           2025-08-02T10:00:00Z  2025-08-09T09:00:00Z  false       false       carol@example.com         Carol Diaz    ES       Madrid      gold          1754128800
                C3           2025-08-09T09:00:00Z  2025-08-20T09:00:00Z  false       false       carol.diaz@example.com    Carol Diaz    ES       Madrid      gold          1754730000
                C3           2025-08-20T09:00:00Z                        false       true        carol.diaz@example.com    Carol Diaz    ES       Madrid      gold          1754730000
                C4           2025-08-02T11:00:00Z  2025-08-05T09:00:00Z  false       false       dan@example.com           Dan Kowalski  PL       Warsaw      bronze        1754132400
                C4           2025-08-05T09:00:00Z  2025-08-08T12:00:00Z  false       false       dan@example.com           Dan Kowalski  PL       Lodz        bronze        1754384400
                C4           2025-08-08T12:00:00Z                        true        false       dan@example.com           Dan Kowalski  PL       Krakow      bronze        1754654400
                C5           2025-08-03T08:30:00Z  2025-08-06T15:00:00Z  false       false       eve@example.com           Eve Novak     CZ       Prague      silver        1754209800
                C5           2025-08-06T15:00:00Z  2025-08-10T09:00:00Z  false       false       eve@example.com           Eve Novak     CZ       Prague      gold          1754492400
                C5           2025-08-10T09:00:00Z  2025-08-11T09:00:00Z  false       false       eve@example.com           Eve Novak     CZ       Prague      silver        1754816400
                C5           2025-08-11T09:00:00Z                        true        false       eve@example.com           Eve Novak     CZ       Brno        silver        1754902800
                C6           2025-08-03T12:00:00Z  2025-08-10T10:00:00Z  false       false       frank@example.com         Frank Weber   DE       Berlin      gold          1754222400
                C6           2025-08-10T10:00:00Z  2025-09-01T09:00:00Z  false       true        frank@example.com         Frank Weber   DE       Berlin      gold          1754222400
                C6           2025-09-01T09:00:00Z                        true        false       frank@example.com         Frank Weber   AT       Vienna      silver        1756717200
                C7           2025-08-04T09:00:00Z  2025-08-09T16:00:00Z  false       false       grace@example.com         Grace Hopper  US       New York    silver        1754298000
                C7           2025-08-09T16:00:00Z  2025-08-25T10:00:00Z  false       false       grace@example.com         Grace Hopper  US       Arlington   gold          1754992800
                C7           2025-08-25T10:00:00Z                        true        false       grace@example.com         Grace Hopper  US       Boston      gold          1756116000
                C8           2025-08-04T07:45:00Z  2025-08-13T10:00:00Z  false       false       heidi@example.com         Heidi Larsen  DK       Copenhagen  bronze        1754293500
                C8           2025-08-13T10:00:00Z  2025-08-20T10:00:00Z  false       false       heidi@example.com         Heidi Larsen  DK       Aarhus      bronze        1755079200
                C8           2025-08-20T10:00:00Z                        true        false       heidi.larsen@example.com  Heidi Larsen  DK       Aarhus      silver        1755684000
                (28 rows)

                JDBC URL: <url>
                """);
    }
}
