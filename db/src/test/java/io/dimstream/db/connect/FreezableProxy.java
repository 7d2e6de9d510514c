package io.dimstream.db.connect;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of a real server that can be frozen: from then on it forwards nothing in
 * either direction and accepts new connections without answering, while every socket stays open:
 * what a client sees of a PostgreSQL whose processes were stopped (SIGSTOP) on a live kernel.
 */
final class FreezableProxy implements AutoCloseable {

    private final ServerSocket server;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean frozen;

    FreezableProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(this::accept, "freezable-proxy");
        t.setDaemon(true);
        t.start();
    }

    int port() {
        return server.getLocalPort();
    }

    void freeze() {
        frozen = true;
    }

    private void accept() {
        try {
            while (true) {
                Socket client = server.accept();
                sockets.add(client);
                if (frozen) {
                    continue;
                }
                Socket upstream = new Socket(targetHost, targetPort);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            }
        } catch (IOException closed) {
            // the proxy was closed
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    while (frozen) {
                        Thread.sleep(50);
                    }
                    out.write(buf, 0, n);
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // a side closed
            }
        }, "freezable-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
