package io.dimstream.app.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Ports of 127.0.0.1 that are not a Kafka broker, for the tests of what an unreachable Kafka gets:
 * one where nothing listens, and one that accepts connections and never answers. {@link #close}
 * closes what the silent ones opened.
 */
public final class TestSockets implements AutoCloseable {

    private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();

    /** A port of 127.0.0.1 where nothing listens: one a server socket had, closed again. */
    public static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** A port of 127.0.0.1 that accepts connections and never says anything (nor closes them). */
    public int silentPort() throws IOException {
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        opened.add(server);
        Thread accept = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    opened.add(s);
                } catch (IOException closed) {
                    return;
                }
            }
        }, "silent-server");
        accept.setDaemon(true);
        accept.start();
        return server.getLocalPort();
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
    }
}
