package io.jfabric.util;

import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class UtilAddressVectorTest {

    static byte[] in4(int last, int port) throws Exception {
        return Sockaddr.of(InetAddress.getByAddress(new byte[] {127, 0, 0, (byte) last}), port);
    }

    private static UtilAddressVector<String> av(AvType type) {
        return new UtilAddressVector<>(AvAttr.of(type), Sockaddr.CODEC, null, "utiltest");
    }

    @Test
    void tableInsertsAreSequentialAcrossCalls() throws Exception {
        var av = av(AvType.TABLE);
        long[] out = new long[2];
        assertEquals(2, av.insert(new byte[][] {in4(1, 1000), in4(2, 1000)}, out, 0, null));
        assertArrayEquals(new long[] {0, 1}, out);
        assertEquals(1, av.insert(new byte[][] {in4(3, 1000)}, null, 0, null), "TABLE allows a null fi_addr array");
        assertArrayEquals(in4(3, 1000), av.lookup(2));
        assertEquals(3, av.count());
        assertEquals(AvType.TABLE, av(AvType.UNSPEC).type());
    }

    @Test
    void badAddressesGetNotavailAndSyncErr() throws Exception {
        var av = av(AvType.MAP);
        long[] out = new long[4];
        int[] errs = new int[4];
        byte[] portZero = in4(9, 0);
        int n = av.insert(new byte[][] {in4(1, 5), new byte[3], portZero, in4(2, 6)}, out, Fabrics.SYNC_ERR, errs);
        assertEquals(2, n);
        assertEquals(0, out[0]);
        assertEquals(Fabrics.ADDR_NOTAVAIL, out[1]);
        assertEquals(Fabrics.ADDR_NOTAVAIL, out[2]);
        assertEquals(1, out[3]);
        assertArrayEquals(new int[] {0, Errno.EINVAL, Errno.EINVAL, 0}, errs);
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> av.insert(new byte[][] {in4(1, 5)}, new long[1], Fabrics.SYNC_ERR, "not int[]")).errno());
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> av.insert(new byte[][] {in4(1, 5)}, null, 0, null)).errno(), "MAP needs fi_addr out");
        assertEquals(Errno.EBADFLAGS, assertThrows(FabricException.class,
                () -> av.insert(new byte[][] {in4(1, 5)}, new long[1], 1L << 40, null)).errno());
        var fe = assertThrows(FabricException.class, () -> av.insert(in4(3, 0)));
        assertEquals(Errno.EINVAL, fe.errno());
        assertTrue(fe.getMessage().contains("fi_sockaddr_in://127.0.0.3:0: port is 0"), fe.getMessage());
    }

    @Test
    void duplicatesShareAnIndexAndRemoveNeedsEveryReference() throws Exception {
        var av = av(AvType.TABLE);
        long a = av.insert(in4(1, 7));
        assertEquals(a, av.insert(in4(1, 7)));
        assertEquals(0, av.remove(new long[] {a}, 0));
        assertTrue(av.isValid(a), "still referenced once");
        assertEquals(0, av.remove(new long[] {a}, 0));
        assertFalse(av.isValid(a));
        assertEquals(Errno.ENOENT, assertThrows(FabricException.class, () -> av.lookup(a)).errno());
        assertEquals(-Errno.EINVAL, av.remove(new long[] {a}, 0), "removing an invalid fi_addr fails");
    }

    @Test
    void removeIsAllOrNothingAndIndexesAreReusedLowestFirst() throws Exception {
        var av = av(AvType.TABLE);
        long[] out = new long[4];
        av.insert(new byte[][] {in4(1, 1), in4(2, 1), in4(3, 1), in4(4, 1)}, out, 0, null);
        assertEquals(-Errno.EINVAL, av.remove(new long[] {1, 99}, 0));
        assertTrue(av.isValid(1), "nothing removed when one fi_addr is bad");
        assertEquals(0, av.remove(new long[] {2, 1}, 0));
        assertEquals(Fabrics.ADDR_NOTAVAIL, av.reverseLookup(in4(2, 1)));
        assertEquals(1, av.insert(in4(5, 1)));
        assertEquals(2, av.insert(in4(6, 1)));
        assertEquals(4, av.insert(in4(7, 1)));
    }

    @Test
    void reverseLookupAndPeersFollowInsertAndRemove() throws Exception {
        List<String> events = new ArrayList<>();
        UtilAddressVector.PeerListener<String> l = new UtilAddressVector.PeerListener<>() {
            @Override
            public String inserted(long fiAddr, byte[] addr) {
                events.add("+" + fiAddr);
                return "peer" + fiAddr;
            }

            @Override
            public void removed(long fiAddr, byte[] addr, String peer) {
                events.add("-" + fiAddr + ":" + peer);
            }
        };
        var av = new UtilAddressVector<>(AvAttr.of(AvType.TABLE), Sockaddr.CODEC, l, "utiltest");
        for (int i = 0; i < 300; i++) {
            assertEquals(i, av.insert(in4(i % 250, 2000 + i)));
        }
        for (int i = 0; i < 300; i++) {
            assertEquals(i, av.reverseLookup(in4(i % 250, 2000 + i)));
            assertEquals("peer" + i, av.peer(i));
        }
        byte[] buf = new byte[40];
        System.arraycopy(in4(7, 2007), 0, buf, 10, 16);
        assertEquals(7, av.reverseLookup(buf, 10, 16));
        assertEquals(Fabrics.ADDR_NOTAVAIL, av.reverseLookup(in4(200, 9)));
        av.remove(new long[] {7}, 0);
        assertNull(av.peer(7));
        assertEquals(Fabrics.ADDR_NOTAVAIL, av.reverseLookup(in4(7, 2007)));
        assertTrue(events.contains("-7:peer7"));
        assertTrue(av.setPeer(8, "lazy"));
        assertEquals("lazy", av.peer(8));
        assertFalse(av.setPeer(7, "x"));
        assertNull(av.peer(-1));
        assertNull(av.peer(1L << 40));
        assertNull(av.peer(Fabrics.ADDR_NOTAVAIL));
        // Remove and re-add many times: tombstones must not break lookups.
        for (int r = 0; r < 5; r++) {
            long[] all = java.util.stream.LongStream.range(0, 300).filter(av::isValid).toArray();
            assertEquals(0, av.remove(all, 0));
            assertEquals(0, av.count());
            for (int i = 0; i < 300; i++) {
                av.insert(in4(i % 250, 3000 + i + r));
            }
            assertEquals(150, av.reverseLookup(in4(150, 3150 + r)));
        }
        Runnable lookups = () -> {
            long s = 0;
            for (int i = 0; i < 50_000; i++) {
                s += av.reverseLookup(buf, 10, 16);
                s += av.peer(i % 300) == null ? 0 : 1;
            }
            if (s == 42) {
                throw new AssertionError();
            }
        };
        lookups.run();
        long bytes = Allocations.bytesDuring(lookups);
        assertTrue(bytes < 1024, "allocated " + bytes);
    }

    @Test
    void lockFreeReadersStayCorrectWhileTheTableChanges() throws Exception {
        var av = av(AvType.TABLE);
        byte[] stable = in4(1, 1);
        long stableAddr = av.insert(stable);
        av.setPeer(stableAddr, "stable");
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger wrong = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicLong lookups = new java.util.concurrent.atomic.AtomicLong();
        Thread reader = Thread.ofPlatform().start(() -> {
            while (!stop.get()) {
                if (av.reverseLookup(stable) != stableAddr || !"stable".equals(av.peer(stableAddr))) {
                    wrong.incrementAndGet();
                }
                lookups.incrementAndGet();
            }
        });
        for (int round = 0; round < 20; round++) {
            long[] added = new long[200];
            for (int i = 0; i < added.length; i++) {
                added[i] = av.insert(in4(2 + (i % 200), 10_000 + round * 200 + i));
            }
            assertEquals(0, av.remove(added, 0));
        }
        stop.set(true);
        reader.join();
        assertEquals(0, wrong.get(), "after " + lookups.get() + " lookups");
        assertEquals(1, av.count());
    }

    @Test
    void eventInsertsReportOnTheBoundEq() throws Exception {
        AvAttr attr = AvAttr.of(AvType.TABLE);
        attr.flags = AvAttr.EVENT;
        var av = new UtilAddressVector<String>(attr, Sockaddr.CODEC, null, "utiltest");
        assertEquals(Errno.ENOEQ, assertThrows(FabricException.class,
                () -> av.insert(new byte[][] {in4(1, 1)}, new long[1], 0, null)).errno());
        var eq = new UtilEventQueue(EqAttr.defaults(), null);
        av.bind(eq);
        long[] out = new long[3];
        assertEquals(0, av.insert(new byte[][] {in4(1, 1), new byte[] {1}, in4(2, 2)}, out, 0, "ctx"));
        assertEquals(0, out[0]);
        assertEquals(Fabrics.ADDR_NOTAVAIL, out[1]);
        EqEntry e = new EqEntry();
        assertEquals(-Errno.EAVAIL, eq.read(e, 0), "per-address error comes first");
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, eq.readError(err, 0));
        assertEquals(Errno.EINVAL, err.err);
        assertEquals(1, err.data, "data is the failed address's position");
        assertSame(av, err.fid);
        assertEquals("ctx", err.context);
        assertTrue(new String(err.errData, StandardCharsets.UTF_8).contains("not a sockaddr"));
        assertEquals(EqEvent.AV_COMPLETE, eq.read(e, 0));
        assertEquals(2, e.data);
        assertEquals("ctx", e.context);
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, eq::close).errno(), "EQ bound to the AV");
        av.close();
        eq.close();
    }

    @Test
    void closeWithBoundEndpointIsEbusy() throws Exception {
        var av = av(AvType.TABLE);
        av.acquire();
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, av::close).errno());
        av.release();
        av.close();
        assertEquals(Errno.EBADF, assertThrows(FabricException.class, () -> av.insert(in4(1, 1))).errno());
    }

    @Test
    void straddrFormats() throws Exception {
        var av = av(AvType.TABLE);
        assertEquals("fi_sockaddr_in://127.0.0.1:4000", av.straddr(in4(1, 4000)));
        byte[] six = Sockaddr.of(InetAddress.getByName("::1"), 5000);
        assertEquals(28, six.length);
        assertEquals("fi_sockaddr_in6://[::1]:5000", av.straddr(six));
        assertEquals("fi_sockaddr_in6://[fe80::1:2]:1", Sockaddr.straddr(
                Sockaddr.of(InetAddress.getByName("fe80:0:0:0:0:0:1:2"), 1)));
        assertTrue(av.straddr(new byte[] {1, 2}).startsWith("fi_addr_unknown://"));
        assertEquals(new java.net.InetSocketAddress("127.0.0.1", 4000), Sockaddr.toInet(in4(1, 4000)));
        long[] out = new long[1];
        assertEquals(1, av.insertSvc("127.0.0.1", "4321", out, 0, null));
        assertEquals("fi_sockaddr_in://127.0.0.1:4321", av.straddr(av.lookup(out[0])));
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class,
                () -> av.insertSvc("127.0.0.1", "http", new long[1], 0, null)).errno());

        StringAddressCodec shm = new StringAddressCodec("fi_shm://", 64);
        var sav = new UtilAddressVector<String>(AvAttr.of(AvType.MAP), shm, null, "utiltest");
        long[] o = new long[2];
        int[] errs = new int[2];
        assertEquals(1, sav.insert(new byte[][] {"fi_shm://1234:0".getBytes(StandardCharsets.US_ASCII),
                "fi_tcp://x".getBytes(StandardCharsets.US_ASCII)}, o, Fabrics.SYNC_ERR, errs));
        assertEquals("fi_shm://1234:0", sav.straddr(sav.lookup(o[0])));
        assertEquals(Errno.EINVAL, errs[1]);
        assertNotNull(shm.validate("fi_shm://".getBytes(StandardCharsets.US_ASCII)));
        assertNotNull(shm.validate("fi_shm://a\0b".getBytes(StandardCharsets.US_ASCII)));
    }
}
