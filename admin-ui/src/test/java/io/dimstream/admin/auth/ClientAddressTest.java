package io.dimstream.admin.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.dimstream.config.model.AddressRange;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientAddressTest {

    private static ClientAddress trusting(String... ranges) {
        return new ClientAddress(List.of(ranges).stream().map(r -> AddressRange.parse(r).orElseThrow()).toList());
    }

    @Test
    void withoutTrustedProxiesTheRemoteAddressIsTheClientWhateverTheHeaderSays() {
        assertThat(trusting().resolve("192.0.2.10", List.of("203.0.113.7")))
                .isEqualTo(new ClientAddress.Client("192.0.2.10", "addr:192.0.2.10"));
    }

    @Test
    void aTrustedProxysHeaderIsReadFromTheRightToTheFirstUntrustedHop() {
        ClientAddress c = trusting("10.0.0.5", "10.1.0.0/16");
        // the client wrote a forged first hop; the proxies appended what they saw
        assertThat(c.resolve("10.0.0.5", List.of("6.6.6.6, 203.0.113.7", "10.1.2.3")))
                .isEqualTo(new ClientAddress.Client("203.0.113.7", "addr:203.0.113.7"));
        // a request from an untrusted peer: its header is not believed
        assertThat(c.resolve("192.0.2.99", List.of("203.0.113.7"))).isEqualTo(new ClientAddress.Client("192.0.2.99", "addr:192.0.2.99"));
        // only trusted hops: the leftmost is as far as we can see
        assertThat(c.resolve("10.0.0.5", List.of("10.1.9.9"))).isEqualTo(new ClientAddress.Client("10.1.9.9", "addr:10.1.9.9"));
        // no header: the proxy itself
        assertThat(c.resolve("10.0.0.5", List.of())).isEqualTo(new ClientAddress.Client("10.0.0.5", "addr:10.0.0.5"));
    }

    @Test
    void aHopThatIsNotAnAddressEndsTheWalkAtTheLastTrustedHopAndPortsAreDropped() {
        ClientAddress c = trusting("10.0.0.5", "10.1.0.0/16");
        assertThat(c.resolve("10.0.0.5", List.of("203.0.113.7, unknown, 10.1.0.1"))).isEqualTo(new ClientAddress.Client("10.1.0.1",
                "addr:10.1.0.1"));
        assertThat(c.resolve("10.0.0.5", List.of("evil.example.com"))).isEqualTo(new ClientAddress.Client("10.0.0.5", "addr:10.0.0.5"));
        assertThat(c.resolve("10.0.0.5", List.of("203.0.113.7:51234"))).isEqualTo(new ClientAddress.Client("203.0.113.7",
                "addr:203.0.113.7"));
        assertThat(c.resolve("10.0.0.5", List.of("[2001:db8::7]:443"))).isEqualTo(new ClientAddress.Client("2001:db8:0:0:0:0:0:7",
                "addr:2001:db8:0:0:0:0:0:0/64"));
    }

    @Test
    void anIpv6ClientIsCountedByItsSlash64() {
        ClientAddress c = trusting();
        assertThat(List.of(c.resolve("2001:db8:1:2::1", List.of()).throttleKey(), c.resolve("2001:db8:1:2:ffff::9", List.of()).throttleKey(),
                c.resolve("[2001:db8:1:3::1]", List.of()).throttleKey()))
                .isEqualTo(List.of("addr:2001:db8:1:2:0:0:0:0/64", "addr:2001:db8:1:2:0:0:0:0/64", "addr:2001:db8:1:3:0:0:0:0/64"));
    }
}
