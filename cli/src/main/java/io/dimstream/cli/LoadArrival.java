package io.dimstream.cli;

import io.dimstream.db.event.LoadInputs;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.SQLException;
import java.time.Instant;
import java.util.HexFormat;
import javax.sql.DataSource;

/**
 * The start a load's seqs count from ({@link io.dimstream.db.event.ArrivalSeq#ofLoad}): for a file,
 * its first load's start ({@link LoadInputs}), so that loading the same file again, or again after a
 * run that failed part-way, is the same arrival and changes nothing; for standard input and a query,
 * which cannot be told apart from another input, this run's start.
 *
 * <p>A file is the same input while its path, size, modification time and file key (the inode) are
 * the same and it is read the same way ({@code reading}: the options that shape its events and the
 * entity's config). The file is not read for this: hashing its content would cost a full extra read
 * of a file of gigabytes, and a file whose content changes gets another modification time. Touching
 * it ({@code touch FILE}) makes it a new arrival, whose same-time events win over the earlier ones.
 */
final class LoadArrival {

    private LoadArrival() {
    }

    /** The start for {@code file} read as {@code reading} into {@code entity}, recorded in {@code dimstream.load_inputs}. */
    static Instant ofFile(DataSource ds, String entity, Path file, String reading, Instant now) {
        String identity;
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            identity = sha256(String.join("\n", "path=" + file.toRealPath(), "size=" + a.size(),
                    "modified=" + a.lastModifiedTime().toInstant(), "key=" + a.fileKey(), "reading=" + reading));
        } catch (IOException e) {
            throw new CliFailure(CliFailure.USAGE, "cannot read " + file + ": " + e.getMessage(), e);
        }
        try {
            return LoadInputs.firstStart(ds, entity, identity, file.toString(), now);
        } catch (SQLException e) {
            throw new CliFailure(CliFailure.FAILED, "cannot record the load of " + file + " in dimstream.load_inputs: " + e.getMessage()
                    + " (SQL state " + e.getSQLState() + ")", e);
        }
    }

    private static String sha256(String s) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by every Java runtime", e);
        }
    }
}
