package io.dimstream.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code --version}: the Maven project version, written into a resource at build time. */
final class VersionProvider implements IVersionProvider {

    static final String RESOURCE = "io/dimstream/cli/version.properties";

    @Override
    public String[] getVersion() throws IOException {
        Properties p = new Properties();
        try (InputStream in = VersionProvider.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException("resource " + RESOURCE + " is missing from the classpath (broken build)");
            }
            p.load(in);
        }
        return new String[] {"dimstream " + p.getProperty("version"), "Java " + System.getProperty("java.version")};
    }
}
