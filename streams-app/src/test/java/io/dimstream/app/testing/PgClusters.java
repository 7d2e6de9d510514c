package io.dimstream.app.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Two real PostgreSQL clusters made by the test from the installed binaries: a primary
 * ({@code initdb}) and a streaming standby of it ({@code pg_basebackup -R}, its
 * {@code primary_conninfo} carrying {@code application_name=}{@value #STANDBY_NAME}), asynchronous or
 * synchronous ({@link Replication}), each on a port of its own and a data directory under
 * {@code base}; the primary can be frozen (SIGSTOP of the postmaster and every child: TCP still
 * accepted, nothing answered) or killed (SIGKILL of them all: connections reset, the port closed), and
 * the standby promoted. initdb refuses root: as root (CI) every PostgreSQL command runs as the
 * {@code postgres} user through {@code runuser}.
 */
public final class PgClusters implements AutoCloseable {

    /** The standby's {@code application_name}, which the primary's {@code synchronous_standby_names} names. */
    public static final String STANDBY_NAME = "standby";

    /** How the primary waits for its standby. */
    public enum Replication {
        /** A commit returns once it is on the primary: a promotion may lose the last ones. */
        ASYNCHRONOUS,
        /**
         * {@code synchronous_standby_names = 'standby'}, {@code synchronous_commit = on} on the primary: a
         * commit returns once the standby has flushed it, so a promotion loses none.
         */
        SYNCHRONOUS
    }

    /** Where Debian's PostgreSQL 15 puts its binaries. */
    public static final Path BIN = Path.of("/usr/lib/postgresql/15/bin");

    private final Path base;
    private final int primaryPort;
    private final int standbyPort;
    private final List<Long> frozen = new ArrayList<>();

    private PgClusters(Path base, int primaryPort, int standbyPort) {
        this.base = base;
        this.primaryPort = primaryPort;
        this.standbyPort = standbyPort;
    }

    /** Why the clusters cannot be made on this machine, or null when they can. */
    public static String unavailable() {
        if (!Files.isExecutable(BIN.resolve("initdb")) || !Files.isExecutable(BIN.resolve("pg_basebackup"))) {
            return "no PostgreSQL 15 binaries at " + BIN;
        }
        if (isRoot() && !Files.isExecutable(Path.of("/usr/sbin/runuser")) && !Files.isExecutable(Path.of("/sbin/runuser"))) {
            return "running as root, and no runuser to run initdb as the postgres user";
        }
        return null;
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /**
     * A primary on {@code primaryPort} and its standby on {@code standbyPort}, both running and the
     * standby streaming ({@code sync} in {@code pg_stat_replication} when {@code replication} is
     * synchronous).
     */
    public static PgClusters start(int primaryPort, int standbyPort, Replication replication) throws IOException, InterruptedException {
        Path base = Files.createTempDirectory("dimstream-pg-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        PgClusters c = new PgClusters(base, primaryPort, standbyPort);
        Path primary = base.resolve("primary");
        c.chown(base);
        c.pg("initdb", "-D", primary.toString(), "--auth=trust", "-U", "postgres", "--no-sync");
        append(primary.resolve("postgresql.conf"), "port = " + primaryPort, "listen_addresses = '127.0.0.1'",
                "unix_socket_directories = '" + primary + "'", "wal_level = replica", "max_wal_senders = 5", "fsync = off",
                "synchronous_commit = on", "shared_buffers = 16MB", "max_connections = 40");
        c.pg("pg_ctl", "-D", primary.toString(), "-l", primary.resolve("log").toString(), "-w", "start");
        Path standby = base.resolve("standby");
        c.pg("pg_basebackup", "-h", "127.0.0.1", "-p", Integer.toString(primaryPort), "-U", "postgres", "-D", standby.toString(),
                "-R", "-X", "stream", "--no-sync");
        append(standby.resolve("postgresql.conf"), "port = " + standbyPort, "unix_socket_directories = '" + standby + "'");
        // after what -R wrote, so it wins: the name the primary knows this standby by
        append(standby.resolve("postgresql.auto.conf"), "primary_conninfo = 'host=127.0.0.1 port=" + primaryPort
                + " user=postgres application_name=" + STANDBY_NAME + "'");
        if (replication == Replication.SYNCHRONOUS) {
            // on the primary only, after the base backup copied its configuration: a promoted standby
            // naming a synchronous standby it does not have would wait on every commit for ever
            append(primary.resolve("postgresql.conf"), "synchronous_standby_names = '" + STANDBY_NAME + "'");
            c.pg("pg_ctl", "-D", primary.toString(), "reload");
        }
        c.pg("pg_ctl", "-D", standby.toString(), "-l", standby.resolve("log").toString(), "-w", "start");
        c.awaitStreaming(replication == Replication.SYNCHRONOUS ? "sync" : "async");
        return c;
    }

    /** Until the primary's {@code pg_stat_replication} shows the standby streaming in {@code syncState}. */
    private void awaitStreaming(String syncState) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String seen = "no row";
        while (System.nanoTime() < deadline) {
            try (Connection c = DriverManager.getConnection(primaryUrl()); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT state, sync_state FROM pg_stat_replication WHERE application_name = '"
                         + STANDBY_NAME + "'")) {
                if (rs.next()) {
                    seen = rs.getString(1) + "/" + rs.getString(2);
                    if ("streaming".equals(rs.getString(1)) && syncState.equals(rs.getString(2))) {
                        return;
                    }
                }
            } catch (SQLException e) {
                seen = e.getMessage();
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the standby '" + STANDBY_NAME + "' is not streaming (" + syncState + ") after 60 s: " + seen);
    }

    /** The multi-host URL of both, primary first, as an operator writes it. */
    public String multiHostUrl() {
        return "jdbc:postgresql://127.0.0.1:" + primaryPort + ",127.0.0.1:" + standbyPort + "/postgres?targetServerType=primary&user=postgres";
    }

    /** The URL of the primary alone. */
    public String primaryUrl() {
        return "jdbc:postgresql://127.0.0.1:" + primaryPort + "/postgres?user=postgres&socketTimeout=5&connectTimeout=5";
    }

    /** The URL of the standby alone (the primary after {@link #promoteStandby}). */
    public String standbyUrl() {
        return "jdbc:postgresql://127.0.0.1:" + standbyPort + "/postgres?user=postgres";
    }

    /** SIGSTOP to the primary's postmaster and every process under it: it hangs, its sockets open. */
    public void freezePrimary() throws IOException, InterruptedException {
        long postmaster = postmaster();
        List<Long> pids = new ArrayList<>();
        pids.add(postmaster);
        pids.addAll(children(postmaster, ""));
        stop(pids);
    }

    /**
     * SIGKILL to the primary's postmaster and every process under it, as a crashed host or an OOM
     * killer: its listening port closes and the kernel ends every connection, and no process is left
     * to answer or to clean up (a stale {@code postmaster.pid} stays, as after a crash; its System V
     * shared memory segment is removed here, or each run would leave one). Returns once none of them runs.
     */
    public void killPrimary() throws IOException, InterruptedException {
        long postmaster = postmaster();
        List<String> pidFile = Files.readAllLines(base.resolve("primary").resolve("postmaster.pid"));
        List<Long> pids = new ArrayList<>();
        pids.add(postmaster);
        pids.addAll(children(postmaster, ""));
        List<String> cmd = new ArrayList<>(List.of("kill", "-KILL"));
        pids.forEach(pid -> cmd.add(Long.toString(pid)));
        // one kill(1) for all, the postmaster first so that it restarts nothing; one that ended meanwhile
        // makes it exit non-zero after signalling the others, which the check below settles
        new ProcessBuilder(cmd).redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
        frozen.removeAll(pids);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pids.stream().anyMatch(PgClusters::running)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the primary's processes " + pids + " still run 10 s after SIGKILL");
            }
            Thread.sleep(20);
        }
        // line 7 of postmaster.pid: the segment's key and id
        String[] shm = pidFile.size() > 6 ? pidFile.get(6).trim().split("\\s+") : new String[0];
        if (shm.length == 2) {
            new ProcessBuilder("ipcrm", "-m", shm[1]).redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
        }
    }

    /** The process runs (exists and is no zombie: in a container nobody may reap it). */
    private static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException gone) {
            return false;
        }
    }

    /**
     * SIGSTOP to the primary's WAL senders: it goes on committing (asynchronous replication) and the
     * standby receives none of it, so a promotion then loses those commits.
     */
    public void holdReplication() throws IOException, InterruptedException {
        List<Long> senders = children(postmaster(), "walsender");
        if (senders.isEmpty()) {
            throw new IllegalStateException("the primary has no WAL sender: the standby is not streaming");
        }
        stop(senders);
    }

    private long postmaster() throws IOException {
        return Long.parseLong(Files.readAllLines(base.resolve("primary").resolve("postmaster.pid")).get(0).trim());
    }

    /** The processes whose parent is {@code parent} and whose command line holds {@code named}. */
    private static List<Long> children(long parent, String named) throws IOException {
        List<Long> out = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(x -> x.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    if (Long.parseLong(after[1]) == parent && cmdline.contains(named)) {
                        out.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // the process ended meanwhile
                }
            }
        }
        return out;
    }

    /**
     * SIGSTOP to each process, one {@code kill} each: a backend listed a moment ago may have ended
     * meanwhile (its client closed), which is no failure; any other refusal is.
     */
    private void stop(List<Long> pids) throws IOException, InterruptedException {
        for (long pid : pids) {
            try {
                run(List.of("kill", "-STOP", Long.toString(pid)));
                frozen.add(pid);
            } catch (IllegalStateException e) {
                if (Files.exists(Path.of("/proc", Long.toString(pid)))) {
                    throw e;
                }
            }
        }
    }

    /** {@code pg_ctl promote} on the standby, waiting until it accepts writes. */
    public void promoteStandby() throws IOException, InterruptedException {
        pg("pg_ctl", "-D", base.resolve("standby").toString(), "-w", "promote");
    }

    private void pg(String binary, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        if (isRoot()) {
            cmd.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        cmd.add(BIN.resolve(binary).toString());
        cmd.addAll(List.of(args));
        run(cmd);
    }

    private void chown(Path dir) throws IOException, InterruptedException {
        if (isRoot()) {
            run(List.of("chown", "postgres:postgres", dir.toString()));
        }
    }

    private void run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    private static void append(Path file, String... lines) throws IOException {
        Files.writeString(file, "\n" + String.join("\n", lines) + "\n", StandardOpenOption.APPEND);
    }

    /** Thaws the primary, stops both at once (a killed one stays dead), removes their directories. */
    @Override
    public void close() throws IOException, InterruptedException {
        if (!frozen.isEmpty()) {
            List<String> cmd = new ArrayList<>(List.of("kill", "-CONT"));
            frozen.forEach(pid -> cmd.add(Long.toString(pid)));
            new ProcessBuilder(cmd).start().waitFor(10, TimeUnit.SECONDS);
        }
        for (String d : List.of("primary", "standby")) {
            if (Files.exists(base.resolve(d).resolve("postmaster.pid"))) {
                try {
                    pg("pg_ctl", "-D", base.resolve(d).toString(), "-m", "immediate", "-w", "stop");
                } catch (IllegalStateException e) {
                    // already stopped
                }
            }
        }
        run(List.of("rm", "-rf", base.toString()));
    }
}
