package io.dimstream.admin.auth;

import io.dimstream.config.model.AddressRange;
import io.javalin.http.Context;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Who a request comes from, for login throttling and the log. Without trusted proxies
 * ({@code admin.trusted-proxies}, default none) it is the connection's remote address: a header
 * any client can write is never believed. When the connection comes from a trusted proxy,
 * {@code X-Forwarded-For} is read from the right (the hop the proxy itself appended) leftwards,
 * skipping trusted proxies; the first address that is not one is the client. A hop that is not
 * an IP literal ends the walk at the last trusted hop, so a forged value can never pick the key
 * the throttle counts.
 *
 * <p>The throttle counts an IPv6 client by its /64 network: one host commonly holds a whole /64,
 * and counting single addresses would give it 2^64 fresh budgets.
 */
public final class ClientAddress {

    /** A request's client: the address as logged, and the key the throttle counts per client. */
    public record Client(String address, String throttleKey) {
    }

    private final List<AddressRange> trusted;

    public ClientAddress(List<AddressRange> trustedProxies) {
        this.trusted = List.copyOf(trustedProxies);
    }

    public Client of(Context ctx) {
        List<String> forwarded = new ArrayList<>(Collections.list(ctx.req().getHeaders("X-Forwarded-For")));
        return resolve(ctx.req().getRemoteAddr(), forwarded);
    }

    /**
     * @param remote    the connection's peer address
     * @param forwarded the {@code X-Forwarded-For} header values, in the order they arrived
     */
    Client resolve(String remote, List<String> forwarded) {
        Optional<InetAddress> peer = AddressRange.literal(remote);
        if (peer.isEmpty()) {
            // not an IP literal (a unix socket, a test double): counted as itself
            return new Client(remote, "addr:" + remote);
        }
        InetAddress client = peer.get();
        if (isTrusted(client)) {
            List<String> hops = new ArrayList<>();
            for (String header : forwarded) {
                for (String hop : header.split(",")) {
                    hops.add(hop.trim());
                }
            }
            for (int i = hops.size() - 1; i >= 0; i--) {
                Optional<InetAddress> hop = AddressRange.literal(withoutPort(hops.get(i)));
                if (hop.isEmpty()) {
                    break;
                }
                client = hop.get();
                if (!isTrusted(client)) {
                    break;
                }
            }
        }
        return new Client(client.getHostAddress(), throttleKey(client));
    }

    private boolean isTrusted(InetAddress a) {
        return trusted.stream().anyMatch(r -> r.contains(a));
    }

    /** {@code 1.2.3.4:5678} and {@code [::1]:443} as some proxies write them, without the port. */
    static String withoutPort(String hop) {
        if (hop.startsWith("[")) {
            int end = hop.indexOf(']');
            return end < 0 ? hop : hop.substring(0, end + 1);
        }
        int colon = hop.indexOf(':');
        if (colon > 0 && colon == hop.lastIndexOf(':') && hop.indexOf('.') > 0) {
            return hop.substring(0, colon);
        }
        return hop;
    }

    /** IPv4: the address; IPv6: its /64 network. */
    static String throttleKey(InetAddress a) {
        if (a instanceof Inet6Address) {
            AddressRange net = AddressRange.parse(a.getHostAddress() + "/64").orElseThrow();
            return "addr:" + net;
        }
        return "addr:" + a.getHostAddress();
    }
}
