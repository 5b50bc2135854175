package io.jfabric.provider.verbs;

import io.jfabric.Access;
import io.jfabric.BindFlags;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.EventQueue;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.MemoryRegion;
import io.jfabric.PassiveEndpoint;
import io.jfabric.util.Sockaddr;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The server half of {@link TwoProcessCheck}, run in its own JVM: listens on the given address, prints
 * "LISTENING port", accepts one connection and echoes every message back, until a 4-byte "DIE!"
 * message makes it halt on the spot (no close, no disconnect: a crash as far as the peer can tell).
 */
public final class VerbsPeer {
    static final int SLOTS = 4;
    static final int SLOT_SIZE = 1 << 20;
    private static final int WAIT_MS = 60_000;

    private VerbsPeer() {
    }

    public static void main(String[] args) throws Exception {
        FabricInfo info = TwoProcessCheck.infoFor(args[0]);
        Fabric fabric = new VerbsProvider().openFabric(info);
        EventQueue eq = fabric.openEq(EqAttr.defaults());
        Domain domain = fabric.openDomain(info);
        CompletionQueue cq = domain.openCq(CqAttr.of(CqFormat.DATA, 64));
        PassiveEndpoint pep = fabric.openPassiveEndpoint(info);
        pep.bind(eq);
        pep.listen();
        System.out.println("LISTENING " + Sockaddr.port(pep.getName()));
        System.out.flush();
        EqEntry ev = new EqEntry();
        if (eq.sread(ev, WAIT_MS, 0) != EqEvent.CONNREQ) {
            fail("no CONNREQ");
        }
        Endpoint ep = domain.openEndpoint(ev.info);
        ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
        ep.bind(eq);
        ep.enable();
        Arena arena = Arena.ofShared();
        MemorySegment buf = arena.allocate((long) SLOTS * SLOT_SIZE, 4096);
        MemoryRegion mr = domain.registerMemory(buf, Access.SEND | Access.RECV, 0);
        for (int i = 0; i < SLOTS; i++) {
            ep.recv(slot(buf, i), mr, 0, i);
        }
        ep.accept(null);
        if (eq.sread(ev, WAIT_MS, 0) != EqEvent.CONNECTED) {
            fail("not CONNECTED");
        }
        CqEntry[] ce = CqEntry.array(1);
        CqErrEntry err = new CqErrEntry();
        while (true) {
            int rc = cq.sread(ce, 1, WAIT_MS);
            if (rc == -Errno.EAVAIL) {
                cq.readError(err, 0);
                fail("error completion " + err);
            } else if (rc != 1) {
                fail("no message within " + WAIT_MS + " ms (" + rc + ")");
            }
            if (!(ce[0].context instanceof Integer slot)) {
                continue; // an echo's send completion
            }
            MemorySegment got = slot(buf, slot).asSlice(0, ce[0].len);
            if (ce[0].len == 4 && java.util.Arrays.equals(got.toArray(ValueLayout.JAVA_BYTE),
                    "DIE!".getBytes(java.nio.charset.StandardCharsets.US_ASCII))) {
                System.out.println("halting without cleanup");
                System.out.flush();
                Runtime.getRuntime().halt(9);
            }
            // echo it back, wait for the send to finish, then give the buffer back to the receive queue
            int s = ep.send(got, mr, 0, "echo");
            if (s != 0) {
                fail("echo send " + s);
            }
            if (cq.sread(ce, 1, WAIT_MS) != 1 || !"echo".equals(ce[0].context)) {
                fail("echo send did not complete");
            }
            ep.recv(slot(buf, slot), mr, 0, slot);
        }
    }

    static MemorySegment slot(MemorySegment buf, int i) {
        return buf.asSlice((long) i * SLOT_SIZE, SLOT_SIZE);
    }

    private static void fail(String why) {
        System.out.println("peer FAIL " + why);
        System.out.flush();
        Runtime.getRuntime().halt(3);
    }

    static void fill(MemorySegment s, long len, int seed) {
        for (long i = 0; i < len; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + seed));
        }
    }

    static boolean same(MemorySegment s, long len, int seed) {
        for (long i = 0; i < len; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != (byte) (i * 13 + seed)) {
                return false;
            }
        }
        return true;
    }
}
