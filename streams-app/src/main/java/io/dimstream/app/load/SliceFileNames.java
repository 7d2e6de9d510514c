package io.dimstream.app.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Stream;

/**
 * A directory of snapshot slices, one file per slice, each slice's instant in its file name
 * ({@code load --input DIR --slice-at-from-name PATTERN}).
 *
 * <p>PATTERN is a Java regular expression that must match the whole file name and has a named
 * group {@code t} holding the instant, e.g. {@code customers_(?<t>\d{4}-\d{2}-\d{2})\.csv}. The
 * group's text is read as the first of: an ISO-8601 instant with an offset
 * ({@code 2025-08-01T06:00:00Z}, {@code 2025-08-01T08:00:00+02:00}); a date-time without one, read
 * as UTC ({@code 2025-08-01T06:00:00}); a date, its midnight UTC ({@code 2025-08-01}); a basic ISO
 * date, its midnight UTC ({@code 20250801}). A regex rather than a {@code java.time} pattern because
 * exports name files with prefixes, suffixes and partition folders a formatter cannot skip; the
 * named group says exactly which part is the time.
 *
 * <p>Every regular, non-hidden file of the directory must match; files that do not, and two files
 * naming one instant, are refused before anything is loaded, naming them.
 */
public final class SliceFileNames {

    /** A file and the slice instant its name gives. */
    public record SliceFile(Path file, Instant slice) {
    }

    private SliceFileNames() {
    }

    /**
     * The slice files of {@code dir}, in time order (the cheapest order to apply them; any order
     * gives the same table).
     *
     * @throws IllegalArgumentException naming the pattern's problem, the files that do not match,
     *                                  or those naming one instant twice
     */
    public static List<SliceFile> list(Path dir, String pattern) throws IOException {
        Pattern p;
        try {
            p = Pattern.compile(pattern);
        } catch (PatternSyntaxException e) {
            throw new IllegalArgumentException("--slice-at-from-name: not a regular expression: " + e.getDescription() + " in " + pattern);
        }
        if (!pattern.contains("(?<t>")) {
            throw new IllegalArgumentException("--slice-at-from-name: the pattern needs a named group t holding the slice's instant, "
                    + "e.g. customers_(?<t>\\d{4}-\\d{2}-\\d{2})\\.csv; got " + pattern);
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList();
        }
        List<SliceFile> out = new ArrayList<>();
        List<String> unmatched = new ArrayList<>();
        List<String> unreadable = new ArrayList<>();
        for (Path f : files) {
            String name = f.getFileName().toString();
            Matcher m = p.matcher(name);
            if (!m.matches()) {
                unmatched.add(name);
                continue;
            }
            Instant t = instant(m.group("t"));
            if (t == null) {
                unreadable.add(name + " ('" + m.group("t") + "')");
            } else {
                out.add(new SliceFile(f, t));
            }
        }
        if (!unmatched.isEmpty()) {
            throw new IllegalArgumentException("--slice-at-from-name: " + unmatched.size() + " file(s) of " + dir + " do not match "
                    + pattern + ": " + String.join(", ", unmatched));
        }
        if (!unreadable.isEmpty()) {
            throw new IllegalArgumentException("--slice-at-from-name: the group t of these file names is not an instant, date-time or "
                    + "date: " + String.join(", ", unreadable));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("--slice-at-from-name: " + dir + " holds no file");
        }
        Map<Instant, String> seen = new HashMap<>();
        for (SliceFile s : out) {
            String other = seen.putIfAbsent(s.slice(), s.file().getFileName().toString());
            if (other != null) {
                throw new IllegalArgumentException("--slice-at-from-name: " + other + " and " + s.file().getFileName()
                        + " both name slice " + s.slice());
            }
        }
        out.sort(Comparator.comparing(SliceFile::slice));
        return out;
    }

    /** The instant a name's group t gives, or null. */
    static Instant instant(String text) {
        try {
            return OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException e) {
            // next form
        }
        try {
            return LocalDateTime.parse(text).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            // next form
        }
        try {
            return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
        } catch (DateTimeParseException e) {
            // next form
        }
        try {
            return LocalDate.parse(text, DateTimeFormatter.BASIC_ISO_DATE).atStartOfDay(ZoneOffset.UTC).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
