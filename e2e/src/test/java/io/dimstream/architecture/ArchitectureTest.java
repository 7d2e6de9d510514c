package io.dimstream.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Where things live: the rules of the layout that the build enforces (this test runs in
 * {@code ./mvnw verify}, in e2e because e2e is the one module with every main class on its
 * classpath; it imports main classes only).
 *
 * <p>The modules point one way (Maven enforces that): {@code cli} and {@code e2e} on top,
 * {@code admin-ui} and {@code streams-app} in the middle, {@code db} and {@code schemas} at the
 * bottom. Inside them:
 *
 * <ol>
 *   <li><b>Only {@code db} builds and runs SQL.</b> Classes outside {@code io.dimstream.db..} do not
 *       call {@code Connection.prepareStatement/prepareCall/createStatement},
 *       {@code Statement.execute*} or PgJDBC's {@code CopyManager.copy*}. They may hold a
 *       {@code Connection} (the sink commits its offsets in the writer's transaction), but every
 *       statement is a method of a db class ({@code db.read.HistoryQueries}, {@code db.sink.SinkOffsets},
 *       {@code db.connect.Databases.ping}, ...), so
 *       the SQL is in one place: every identifier through {@code Sql.ident}, every value a
 *       {@code ?}, every table's statements next to its migration and tested against PostgreSQL
 *       in db's own tests. The one exception is the benchmark harness ({@code io.dimstream.bench},
 *       e2e's main code, never shipped): it drops and vacuums its own tables, alters their
 *       storage and runs a deliberately naive row-by-row SCD2 writer as the baseline it measures
 *       the real one against; none of that belongs in the product's db module.</li>
 *   <li><b>{@code db} and {@code config} know no Kafka.</b> They are the storage layer and the
 *       configuration model; the admin UI and the CLI's offline commands use them without a
 *       broker. Kafka concepts in config are plain values (names, strings), turned into clients
 *       in streams-app.</li>
 *   <li><b>{@code admin} knows no Kafka.</b> The admin UI reads and writes PostgreSQL only (replay
 *       and redrive are jobs in PostgreSQL that the service picks up), so it runs and is tested
 *       without a broker.</li>
 *   <li><b>The topology knows no JDBC.</b> {@code io.dimstream.app.topology..} is the Kafka
 *       Streams part: pure, tested with TopologyTestDriver, no database; PostgreSQL is the sink's
 *       job.</li>
 *   <li><b>The sources of changes share one pipeline.</b> The sink, replays and {@code load} hand
 *       their batches to {@code db.apply.BatchApplier}; none borrows another's steps: replay does not
 *       use load ({@code app.replay} does not depend on {@code app.load}), and the sink takes its
 *       settings and entity shapes from the service, never the YAML model ({@code app.sink} does not
 *       depend on {@code io.dimstream.config}). The topology may read the config model: how a source
 *       topic is decoded ({@code CdcOptions}, formats) is the config's vocabulary, turned into
 *       decoders there.</li>
 *   <li><b>No package cycles</b>, neither between two packages (each package its own slice, a
 *       parent and its subpackage included) nor between the top-level areas
 *       ({@code db}, {@code config}, {@code app}, {@code admin}, {@code cli}, {@code schemas},
 *       {@code bench}). A shared type lives in the lower package of the two, or in one of its
 *       own; a package can then be read, tested and moved without the other.</li>
 * </ol>
 *
 * <p>Where the shared things live because of rule 5: masking secrets in printed text in
 * {@code db.secrets} (used by {@code config}, {@code db.connect} and the CLI); the input-limited JSON
 * mapper in {@code db.json} (used by the entity's jsonb type and the event codec); the writer's
 * reserved work-column names in {@code db.entity.EntitySpec} (with the check that refuses them);
 * the sink's meters in {@code app.sink} ({@code app.metrics} serves them and the health model, and
 * depends on the sink, never the reverse); the login page in {@code admin.login}, a feature package
 * over {@code admin.web} and {@code admin.auth} ({@code web} uses {@code auth}; {@code auth} uses
 * neither).
 *
 * <p>The package cycles are found by a strongly-connected-components pass over ArchUnit's
 * dependency graph ({@link #cycles}) rather than by {@code slices().should().beFreeOfCycles()}:
 * run over all of dimstream while it had several cycles, ArchUnit 1.5.1's slice rule reported
 * some and left out the {@code admin.auth <-> admin.web} one (the same rule over the admin's
 * classes alone found it). The SCC pass reports every cycle, with one dependency per edge.
 *
 * <p>Run alone: {@code ./mvnw -o -q -B verify -pl e2e -am -Dtest=ArchitectureTest
 * -Dsurefire.failIfNoSpecifiedTests=false -DskipITs}.
 */
class ArchitectureTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar")) // db's test fixtures (io.dimstream.db.testing)
                .importPackages("io.dimstream");
    }

    @Test
    void theImportSeesEveryModulesMainClasses() {
        assertThat(Set.of(
                "io.dimstream.schemas.DemoSchemas",
                "io.dimstream.db.write.Scd2Writer",
                "io.dimstream.config.ConfigReader",
                "io.dimstream.app.topology.DimstreamTopology",
                "io.dimstream.app.sink.ChangeSink",
                "io.dimstream.admin.AdminServer",
                "io.dimstream.cli.DimstreamCli",
                "io.dimstream.bench.WriterBenchmark"))
                .allSatisfy(name -> assertThat(main.contain(name)).as(name).isTrue());
        assertThat(main.stream().map(c -> c.getPackageName()).filter(p -> p.equals("io.dimstream.db.testing")
                        || p.startsWith("io.dimstream.architecture")))
                .as("test classes imported").isEmpty();
    }

    /**
     * Running SQL text: {@code Connection.prepareStatement/prepareCall/createStatement},
     * {@code Statement.execute*} (so also {@code PreparedStatement}'s), and PgJDBC's
     * {@code CopyManager.copyIn/copyOut}, on the interface or any implementation of it.
     */
    private static final DescribedPredicate<JavaMethodCall> RUNS_SQL = new DescribedPredicate<>(
            "Connection.prepareStatement/prepareCall/createStatement, Statement.execute* or CopyManager.copy*") {
        @Override
        public boolean test(JavaMethodCall call) {
            var owner = call.getTarget().getOwner();
            String name = call.getTarget().getName();
            return owner.isAssignableTo(Connection.class)
                            && Set.of("prepareStatement", "prepareCall", "createStatement").contains(name)
                    || owner.isAssignableTo(Statement.class) && name.startsWith("execute")
                    || owner.isAssignableTo("org.postgresql.copy.CopyManager") && name.startsWith("copy");
        }
    };

    @Test
    void onlyDbBuildsAndRunsSql() {
        noClasses().that().resideOutsideOfPackages("io.dimstream.db..", "io.dimstream.bench..")
                .should().callMethodWhere(RUNS_SQL)
                .because("the SQL lives in one place, the db module: identifiers through Sql.ident, values as ?, "
                        + "each statement tested against PostgreSQL next to its migration "
                        + "(io.dimstream.bench, the benchmark harness, manages its own tables and runs a naive "
                        + "baseline writer; it is never shipped)")
                .check(main);
    }

    @Test
    void dbAndConfigKnowNoKafka() {
        noClasses().that().resideInAnyPackage("io.dimstream.db..", "io.dimstream.config..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..")
                .because("db is the storage layer and config the configuration model; "
                        + "the admin UI and the offline commands use both without a broker")
                .check(main);
    }

    @Test
    void dbKnowsNoConfig() {
        noClasses().that().resideInAPackage("io.dimstream.db..")
                .should().dependOnClassesThat().resideInAPackage("io.dimstream.config..")
                .because("the modules point one way: config (dimstream-config) builds the db module's EntitySpec "
                        + "from YAML; the writer, readers and jobs take specs and settings, never the YAML model")
                .check(main);
    }

    @Test
    void adminKnowsNoKafka() {
        noClasses().that().resideInAPackage("io.dimstream.admin..")
                .should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..")
                .because("the admin UI reads and writes PostgreSQL only (replay and redrive are jobs in PostgreSQL "
                        + "that the service picks up), so it runs and is tested without a broker")
                .check(main);
    }

    @Test
    void topologyKnowsNoJdbc() {
        noClasses().that().resideInAPackage("io.dimstream.app.topology..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "java.sql..", "javax.sql..", "org.postgresql..", "com.zaxxer.hikari..")
                .because("the topology is the Kafka Streams part, tested with TopologyTestDriver and no database; "
                        + "writing to PostgreSQL is the sink's job")
                .check(main);
    }

    @Test
    void replayDoesNotUseLoad() {
        noClasses().that().resideInAPackage("io.dimstream.app.replay..")
                .should().dependOnClassesThat().resideInAPackage("io.dimstream.app.load..")
                .because("replays and load are two sources of the one apply pipeline (db.apply); what both need "
                        + "lives there, not in one of them")
                .check(main);
    }

    @Test
    void theSinkDoesNotReadTheConfig() {
        noClasses().that().resideInAPackage("io.dimstream.app.sink..")
                .should().dependOnClassesThat().resideInAPackage("io.dimstream.config..")
                .because("the sink takes SinkSettings and the entities' shapes; the service translates the config "
                        + "(SinkSettingsFromConfig, EntityShapes)")
                .check(main);
    }

    @Test
    void noCycleBetweenPackages() {
        assertThat(cycles(main, Function.identity()))
                .as("package cycles (each package its own slice; a type both need lives in the lower one, "
                        + "so each can be read, tested and moved without the other)")
                .isEmpty();
    }

    @Test
    void noCycleBetweenTopLevelAreas() {
        assertThat(cycles(main, ArchitectureTest::area))
                .as("cycles between db, config, app, admin, cli, schemas and bench, which are layered: cli and "
                        + "bench on top, app and admin in the middle, db, config and schemas at the bottom")
                .isEmpty();
        // ArchUnit's own slice rule says the same for the areas (it is not used for the package
        // level: with several cycles in the graph, 1.5.1 left out the admin.auth <-> admin.web one)
        slices().matching("io.dimstream.(*)..").should().beFreeOfCycles().check(main);
    }

    /** {@code io.dimstream.db.write} -> {@code db}. */
    private static String area(String packageName) {
        String rest = packageName.substring("io.dimstream.".length());
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    /**
     * The cycles of the graph whose nodes are {@code sliceOf(package)} of our classes and whose edges
     * are the classes' dependencies (calls, fields, signatures, generic arguments, annotations...):
     * every strongly connected component of more than one slice (Tarjan), each printed as its
     * slices and, per edge inside it, the first dependency that makes it.
     */
    static List<String> cycles(JavaClasses classes, Function<String, String> sliceOf) {
        Map<String, Map<String, String>> edges = new TreeMap<>();
        for (JavaClass c : classes) {
            String from = sliceOf.apply(c.getPackageName());
            edges.computeIfAbsent(from, k -> new TreeMap<>());
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                JavaClass targetClass = d.getTargetClass().getBaseComponentType(); // Foo[] -> Foo
                String target = targetClass.getPackageName();
                if (!target.startsWith("io.dimstream.") || !classes.contain(targetClass.getName())) {
                    continue;
                }
                String to = sliceOf.apply(target);
                if (!to.equals(from)) {
                    edges.get(from).putIfAbsent(to, d.getDescription());
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (Set<String> scc : new Tarjan(edges).components()) {
            if (scc.size() > 1) {
                StringBuilder b = new StringBuilder("cycle between " + scc + ":");
                for (String from : scc) {
                    edges.get(from).forEach((to, why) -> {
                        if (scc.contains(to)) {
                            b.append("\n  ").append(from).append(" -> ").append(to).append(": ").append(why);
                        }
                    });
                }
                out.add(b.toString());
            }
        }
        return out;
    }

    /** Tarjan's strongly connected components. */
    private static final class Tarjan {
        private final Map<String, Map<String, String>> edges;
        private final Map<String, Integer> index = new HashMap<>();
        private final Map<String, Integer> low = new HashMap<>();
        private final Deque<String> stack = new ArrayDeque<>();
        private final Set<String> onStack = new HashSet<>();
        private final List<Set<String>> components = new ArrayList<>();

        Tarjan(Map<String, Map<String, String>> edges) {
            this.edges = edges;
        }

        List<Set<String>> components() {
            for (String v : edges.keySet()) {
                if (!index.containsKey(v)) {
                    visit(v);
                }
            }
            return components;
        }

        private void visit(String v) {
            index.put(v, index.size());
            low.put(v, index.get(v));
            stack.push(v);
            onStack.add(v);
            for (String w : edges.getOrDefault(v, Map.of()).keySet()) {
                if (!index.containsKey(w)) {
                    visit(w);
                    low.put(v, Math.min(low.get(v), low.get(w)));
                } else if (onStack.contains(w)) {
                    low.put(v, Math.min(low.get(v), index.get(w)));
                }
            }
            if (low.get(v).equals(index.get(v))) {
                Set<String> scc = new TreeSet<>();
                String w;
                do {
                    w = stack.pop();
                    onStack.remove(w);
                    scc.add(w);
                } while (!w.equals(v));
                components.add(scc);
            }
        }
    }
}
