package io.dimstream.app.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Two real PostgreSQL clusters made by the test from the installed binaries: a primary
 * ({@code initdb}) and an asynchronous streaming standby of it ({@code pg_basebackup -R}), each on a
 * port of its own and a data directory under {@code base}; the primary can be frozen (SIGSTOP of the
 * postmaster and every child: TCP still accepted, nothing answered) and the standby promoted. initdb
 * refuses root: as root (CI) every PostgreSQL command runs as the {@code postgres} user through
 * {@code runuser}.
 */
public final class PgClusters implements AutoCloseable {

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

    /** A primary on {@code primaryPort} and its streaming standby on {@code standbyPort}, both running. */
    public static PgClusters start(int primaryPort, int standbyPort) throws IOException, InterruptedException {
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
        c.pg("pg_ctl", "-D", standby.toString(), "-l", standby.resolve("log").toString(), "-w", "start");
        return c;
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

    /** Thaws the primary, stops both at once, removes their directories. */
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
