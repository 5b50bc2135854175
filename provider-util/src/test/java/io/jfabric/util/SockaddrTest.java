package io.jfabric.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.net.UnknownHostException;

import static org.junit.jupiter.api.Assertions.*;

/** The sockaddr helpers ofi_rxm's connection manager and AV use: ofi_addr_cmp, ofi_addr_set_port, the map key. */
@Timeout(30)
class SockaddrTest {
    static final byte[] LOW = addr(127, 0, 0, 1, 5000);
    static final byte[] HIGH = addr(127, 0, 0, 2, 5000);

    static byte[] addr(int a, int b, int c, int d, int port) {
        try {
            return Sockaddr.of(InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d}), port);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void compareMatchesOfiAddrCmp() {
        assertTrue(Sockaddr.compare(LOW, HIGH) < 0);
        assertTrue(Sockaddr.compare(addr(127, 0, 0, 1, 0x0100), addr(127, 0, 0, 1, 0x00FF)) > 0,
                "ports compare in network byte order");
        assertTrue(Sockaddr.compare(addr(200, 0, 0, 1, 1), addr(10, 0, 0, 1, 1)) > 0, "unsigned bytes");
        assertEquals(0, Sockaddr.compare(LOW, LOW.clone()));
    }

    @Test
    void withPortSetsThePortInNetworkOrderOnACopy() {
        byte[] a = Sockaddr.withPort(LOW, 0x1234);
        assertEquals(0x1234, Sockaddr.port(a));
        assertEquals(5000, Sockaddr.port(LOW), "the original is untouched");
        assertEquals(0x12, a[2]);
        assertEquals(0x34, a[3]);
    }

    @Test
    void keyIgnoresThePadding() {
        byte[] padded = LOW.clone();
        padded[12] = 7;
        assertEquals(Sockaddr.key(LOW), Sockaddr.key(padded));
        assertNotEquals(Sockaddr.key(LOW), Sockaddr.key(HIGH));
        assertNotEquals(Sockaddr.key(LOW), Sockaddr.key(Sockaddr.withPort(LOW, 5001)));
    }
}
