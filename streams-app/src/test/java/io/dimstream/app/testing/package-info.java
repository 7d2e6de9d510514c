/**
 * The test fixtures every module above {@code streams-app} shares (issue 15): one embedded broker
 * per test JVM ({@link io.dimstream.app.testing.EmbeddedKafkaExtension}), a generated feed
 * produced into a topic and what the reference model makes of it
 * ({@link io.dimstream.app.testing.FeedFixtures}), and the service harness that runs
 * {@code dimstream run} in child JVMs against a broker and the test PostgreSQL
 * ({@link io.dimstream.app.testing.ServiceHarness}, used by {@code cli}'s fault tests), and a
 * data source that plays PostgreSQL refusing connections or commits
 * ({@link io.dimstream.app.testing.FlakyDataSource}, the sink's and the loader's failure tests), and
 * a primary PostgreSQL with an asynchronous or synchronous streaming standby made from the installed
 * binaries, whose primary can be frozen or killed and standby promoted
 * ({@link io.dimstream.app.testing.PgClusters}, the failover test).
 *
 * <p>Why a test-jar of {@code streams-app} and not a module of its own: the fixtures are built on
 * {@code streams-app}'s main classes (the embedded broker, the demo feed, the service), and
 * {@code streams-app}'s own ITs use them too. A separate {@code testing} module would depend on
 * {@code streams-app} and be a test dependency of it at once, a cycle Maven's reactor refuses; the
 * alternative, moving the broker out of {@code streams-app}, would touch main code others are
 * editing. So the fixtures live in {@code streams-app/src/test/java}, are packaged as its
 * {@code test-jar} (as {@code db} ships {@code TestPostgres}), and {@code cli} and {@code e2e}
 * depend on {@code dimstream-streams-app:test-jar} in test scope. Only this package is meant for
 * other modules; the rest of the test-jar is {@code streams-app}'s own tests.
 *
 * <p>Classes here are public, documented, and keep no state between test classes except the
 * shared broker; whatever a test creates on it (topics, groups, application ids, tables) carries
 * the test's own name.
 */
package io.dimstream.app.testing;
