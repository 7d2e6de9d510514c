package io.dimstream.config.model;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * An IP address or a CIDR block ({@code 10.0.0.0/8}, {@code 192.168.1.7}, {@code fd00::/8},
 * {@code ::1}), as {@code admin.trusted-proxies} lists them. Only literals are read: a host name
 * is refused, never looked up (no DNS on a request's path).
 *
 * @param network the block's first address (host bits cleared)
 * @param prefix  the number of leading bits that must match (32 or 128 for one address)
 */
public record AddressRange(InetAddress network, int prefix) {

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+");

    /** {@code 10.0.0.0/8}, {@code 10.1.2.3}, {@code ::1}, {@code [::1]}; empty when not such a literal. */
    public static Optional<AddressRange> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String s = text.trim();
        int slash = s.indexOf('/');
        String addr = slash < 0 ? s : s.substring(0, slash);
        Optional<InetAddress> a = literal(addr);
        if (a.isEmpty()) {
            return Optional.empty();
        }
        int bits = a.get().getAddress().length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = s.substring(slash + 1);
            if (!p.matches("\\d{1,3}")) {
                return Optional.empty();
            }
            prefix = Integer.parseInt(p);
            if (prefix > bits) {
                return Optional.empty();
            }
        }
        return Optional.of(new AddressRange(masked(a.get(), prefix), prefix));
    }

    /**
     * An IP literal ({@code 10.0.0.1}, {@code ::1}, {@code [::1]}) as an address; empty for
     * anything else (a host name, {@code unknown}, garbage). Never a DNS lookup.
     */
    public static Optional<InetAddress> literal(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String s = text.trim();
        if (s.startsWith("[") && s.endsWith("]")) {
            s = s.substring(1, s.length() - 1);
        }
        try {
            var m = IPV4.matcher(s);
            if (m.matches()) {
                byte[] b = new byte[4];
                for (int i = 0; i < 4; i++) {
                    int v = Integer.parseInt(m.group(i + 1));
                    if (v > 255) {
                        return Optional.empty();
                    }
                    b[i] = (byte) v;
                }
                return Optional.of(InetAddress.getByAddress(b));
            }
            if (s.indexOf(':') >= 0 && IPV6.matcher(s).matches()) {
                // a literal with ':' is parsed, never resolved
                return Optional.of(InetAddress.getByName(s));
            }
        } catch (UnknownHostException | NumberFormatException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    /** Whether {@code a} lies in this block (an IPv4 address never lies in an IPv6 block, nor the reverse). */
    public boolean contains(InetAddress a) {
        byte[] x = a.getAddress();
        byte[] n = network.getAddress();
        if (x.length != n.length) {
            return false;
        }
        return masked(a, prefix).equals(network);
    }

    /** {@code 10.0.0.0/8}; a single address without {@code /32} or {@code /128}. */
    @Override
    public String toString() {
        String host = network.getHostAddress();
        return prefix == network.getAddress().length * 8 ? host : host + "/" + prefix;
    }

    private static InetAddress masked(InetAddress a, int prefix) {
        byte[] b = a.getAddress();
        for (int i = 0; i < b.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - i * 8));
            b[i] = (byte) (b[i] & (0xff << (8 - keep)));
        }
        try {
            return InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
