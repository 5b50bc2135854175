package io.jfabric;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** FabricInfo, CqEntry and CqErrEntry print like fi_info and fi_tostr: addresses as fi_straddr, flags by name. */
@Timeout(10)
class ReadableValuesTest {

    /** struct sockaddr_in for 127.0.0.1:4711 (family little-endian, port big-endian). */
    static byte[] sockaddrIn(int a, int b, int c, int d, int port) {
        return new byte[] {2, 0, (byte) (port >> 8), (byte) port, (byte) a, (byte) b, (byte) c, (byte) d,
                0, 0, 0, 0, 0, 0, 0, 0};
    }

    /** struct sockaddr_in6 with the 16 address bytes given. */
    static byte[] sockaddrIn6(byte[] addr16, int port) {
        byte[] s = new byte[28];
        s[0] = 10;
        s[2] = (byte) (port >> 8);
        s[3] = (byte) port;
        System.arraycopy(addr16, 0, s, 8, 16);
        return s;
    }

    static FabricInfo tcpInfo() {
        FabricInfo info = FabricInfo.hints();
        info.fabricAttr.provName = "tcp";
        info.fabricAttr.name = "127.0.0.1/32";
        info.domainAttr.name = "lo";
        info.epAttr.type = EndpointType.MSG;
        info.epAttr.protocol = Protocol.SOCK_TCP;
        info.caps = Caps.MSG | Caps.RMA;
        return info;
    }

    @Test
    void infoPrintsAnIpv4AddressAsFiStraddrDoes() {
        FabricInfo info = tcpInfo();
        info.addrFormat = AddressFormat.SOCKADDR_IN;
        info.srcAddr = sockaddrIn(127, 0, 0, 1, 4711);
        assertEquals("fi_info[provider: tcp, fabric: 127.0.0.1/32, domain: lo, type: FI_EP_MSG, protocol: "
                + "FI_PROTO_SOCK_TCP, src_addr: fi_sockaddr_in://127.0.0.1:4711, dest_addr: (null), "
                + "caps: [ FI_MSG, FI_RMA ]]", info.toString());
    }

    @Test
    void infoPrintsAnIpv6AddressInBracketsWithZerosCompressed() {
        FabricInfo info = tcpInfo();
        info.addrFormat = AddressFormat.SOCKADDR_IN6;
        byte[] loopback = new byte[16];
        loopback[15] = 1;
        info.srcAddr = sockaddrIn6(loopback, 4711);
        byte[] linkLocal = new byte[16];
        linkLocal[0] = (byte) 0xfe;
        linkLocal[1] = (byte) 0x80;
        linkLocal[15] = 2;
        info.destAddr = sockaddrIn6(linkLocal, 9);
        String s = info.toString();
        assertTrue(s.contains("src_addr: fi_sockaddr_in6://[::1]:4711, dest_addr: fi_sockaddr_in6://[fe80::2]:9"), s);
    }

    @Test
    void infoPrintsAnAddrStrAddressAsItsString() {
        FabricInfo info = tcpInfo();
        info.fabricAttr.provName = "shm";
        info.addrFormat = AddressFormat.ADDR_STR;
        info.srcAddr = "fi_shm://4242".getBytes(StandardCharsets.US_ASCII);
        String s = info.toString();
        assertTrue(s.contains("src_addr: fi_shm://4242,"), s);
    }

    @Test
    void completionPrintsFieldNamesAndFlagsByName() {
        CqEntry e = new CqEntry().set("ctx", OpFlags.RECV | OpFlags.TAGGED | OpFlags.REMOTE_CQ_DATA, 64, 0, 0x2a, 0x7);
        assertEquals("fi_cq_tagged_entry[op_context: ctx, flags: [ FI_RECV, FI_TAGGED, FI_REMOTE_CQ_DATA ], len: 64, "
                + "buf: 0x0, data: 0x2a, tag: 0x7, src_addr: FI_ADDR_NOTAVAIL]", e.toString());
        e.srcAddr = 3;
        assertTrue(e.toString().endsWith("src_addr: 3]"), e.toString());
    }

    @Test
    void errorCompletionPrintsErrByNameAndText() {
        CqErrEntry e = new CqErrEntry().setError("ctx", OpFlags.RECV | OpFlags.MSG, 16, 48, Errno.ETRUNC, 0);
        assertEquals("fi_cq_err_entry[op_context: ctx, flags: [ FI_RECV, FI_MSG ], len: 16, buf: 0x0, data: 0x0, "
                + "tag: 0x0, src_addr: FI_ADDR_NOTAVAIL, olen: 48, err: FI_ETRUNC (Truncation error), prov_errno: 0, "
                + "err_data_size: 0]", e.toString());
    }
}
