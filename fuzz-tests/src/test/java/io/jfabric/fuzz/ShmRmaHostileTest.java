package io.jfabric.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Access;
import io.jfabric.AddressVector;
import io.jfabric.AvAttr;
import io.jfabric.AvType;
import io.jfabric.BindFlags;
import io.jfabric.Caps;
import io.jfabric.CompletionQueue;
import io.jfabric.CqAttr;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.CqFormat;
import io.jfabric.Domain;
import io.jfabric.Endpoint;
import io.jfabric.EndpointType;
import io.jfabric.Errno;
import io.jfabric.Fabric;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RMA through the shm provider with forged keys, addresses outside or straddling the registered region,
 * wrapping addresses, zero lengths and absurd iov counts. Each bad operation must be refused (negative
 * return) or complete with an error, the target region must keep its bytes, and a correct write afterwards
 * must still land.
 */
@Timeout(30)
class ShmRmaHostileTest {
    private static final int SIZE = 4096;
    private static final byte FILL = 0x5A;

    private final Arena arena = Arena.ofShared();
    private Node initiator;
    private Node target;
    private MemorySegment targetMem;
    private MemoryRegion targetMr;
    private long toTarget;
    private MemorySegment src;

    /** One shm RDM endpoint with its fabric, domain, AV and CQ. */
    private static final class Node {
        final Fabric fabric;
        final Domain domain;
        final AddressVector av;
        final CompletionQueue cq;
        final Endpoint ep;
        final boolean virtAddr;

        Node() {
            FabricInfo hints = FabricInfo.hints();
            hints.caps = Caps.MSG | Caps.RMA;
            hints.epAttr.type = EndpointType.RDM;
            hints.fabricAttr.provName = "shm";
            FabricInfo info = Fabrics.getInfo(hints).getFirst();
            virtAddr = (info.domainAttr.mrMode & io.jfabric.MrMode.VIRT_ADDR) != 0;
            fabric = Fabrics.openFabric(info);
            domain = fabric.openDomain(info);
            av = domain.openAv(AvAttr.of(AvType.TABLE));
            cq = domain.openCq(CqAttr.of(CqFormat.TAGGED, 64));
            ep = domain.openEndpoint(info);
            ep.bind(cq, BindFlags.TRANSMIT | BindFlags.RECV);
            ep.bind(av);
            ep.enable();
        }

        void close() {
            ep.close();
            cq.close();
            av.close();
            domain.close();
            fabric.close();
        }
    }

    @BeforeEach
    void open() {
        initiator = new Node();
        target = new Node();
        targetMem = arena.allocate(SIZE, 64);
        targetMem.fill(FILL);
        targetMr = target.domain.registerMemory(targetMem, Access.REMOTE_WRITE | Access.REMOTE_READ, 0);
        toTarget = initiator.av.insert(target.ep.getName());
        src = arena.allocate(SIZE, 64);
        for (int i = 0; i < SIZE; i++) {
            src.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
        }
    }

    @AfterEach
    void close() {
        targetMr.close();
        initiator.close();
        target.close();
        arena.close();
    }

    @Test
    void forgedKeyIsRefused() {
        long base = remoteBase();
        assertRefused("write with a forged key", () -> initiator.ep.write(src.asSlice(0, 64), null, toTarget, base,
                targetMr.key() ^ 0x5A5A_0000L, "forged"));
        MemorySegment local = arena.allocate(64);
        local.fill((byte) 0x11);
        assertRefused("read with a forged key", () -> initiator.ep.read(local, null, toTarget, base,
                targetMr.key() + 1, "forged-read"));
        for (int i = 0; i < 64; i++) {
            assertEquals(0x11, local.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i), "refused read wrote local byte " + i);
        }
        assertWellBehavedWriteLands();
    }

    @Test
    void outOfRangeAndWrappingAddressesAreRefused() {
        long base = remoteBase();
        long key = targetMr.key();
        assertRefused("write straddling the end", () -> initiator.ep.write(src.asSlice(0, 64), null, toTarget,
                base + SIZE - 8, key, "straddle"));
        assertRefused("write before the start", () -> initiator.ep.write(src.asSlice(0, 64), null, toTarget,
                base - 64, key, "before"));
        assertRefused("write wholly after the end", () -> initiator.ep.write(src.asSlice(0, 64), null, toTarget,
                base + SIZE, key, "after"));
        assertRefused("write at an address that wraps", () -> initiator.ep.write(src.asSlice(0, 64), null, toTarget,
                -32L, key, "wrap"));
        assertRefused("write of the whole region plus one", () -> initiator.ep.write(src.asSlice(0, SIZE), null,
                toTarget, base + 1, key, "plus-one"));
        assertWellBehavedWriteLands();
    }

    @Test
    void zeroLengthWriteChangesNothing() {
        int rc = initiator.ep.write(src.asSlice(0, 0), null, toTarget, remoteBase(), targetMr.key(), "zero");
        if (rc == 0) {
            CqErrEntry err = new CqErrEntry();
            int c = awaitCompletion(err);
            assertTrue(c == 1 || c == -Errno.EAVAIL, "zero-length write never completed");
        } else {
            assertTrue(rc < 0 && rc != -Errno.EAGAIN, "zero-length write: " + rc);
        }
        assertTargetUntouched("zero-length write");
        assertWellBehavedWriteLands();
    }

    @Test
    void absurdIovCountsAreRefused() {
        int n = 100_000;
        MemorySegment[] iov = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            iov[i] = src.asSlice(0, 1);
        }
        MemoryRegion[] desc = new MemoryRegion[n];
        long base = remoteBase();
        assertRefused("writev with 100000 iovs", () -> initiator.ep.writev(iov, desc, n, toTarget, base,
                targetMr.key(), "huge-iov"));
        assertRefused("writev with a negative count", () -> initiator.ep.writev(iov, desc, -1, toTarget, base,
                targetMr.key(), "neg-iov"));
        assertRefused("writev with a count above the array", () -> initiator.ep.writev(new MemorySegment[1],
                new MemoryRegion[1], 2, toTarget, base, targetMr.key(), "short-array"));
        assertWellBehavedWriteLands();
    }

    /** Where the target region starts in RMA addresses: its virtual address with FI_MR_VIRT_ADDR, else 0. */
    private long remoteBase() {
        return target.virtAddr ? targetMem.address() : 0;
    }

    /** Negative return (not EAGAIN), or an error completion; the target keeps its bytes either way. */
    private void assertRefused(String what, IntSupplier op) {
        int rc;
        try {
            rc = op.getAsInt();
        } catch (RuntimeException e) {
            throw new AssertionError(what + " threw on the data path: " + e, e);
        }
        if (rc == 0) {
            CqErrEntry err = new CqErrEntry();
            int c = awaitCompletion(err);
            assertEquals(-Errno.EAVAIL, c, what + " completed successfully");
            assertTrue(err.err > 0, what + ": error completion without errno");
        } else {
            assertTrue(rc < 0 && rc != -Errno.EAGAIN, what + ": rc " + rc);
        }
        assertTargetUntouched(what);
    }

    private int awaitCompletion(CqErrEntry err) {
        CqEntry[] one = CqEntry.array(1);
        long end = System.nanoTime() + 5_000_000_000L;
        while (System.nanoTime() < end) {
            int n = initiator.cq.readFrom(one, 1);
            target.cq.readFrom(CqEntry.array(1), 1); // drive the target's progress
            if (n == 1) {
                return 1;
            }
            if (n == -Errno.EAVAIL) {
                initiator.cq.readError(err, 0);
                return -Errno.EAVAIL;
            }
        }
        return -Errno.EAGAIN;
    }

    private void assertTargetUntouched(String what) {
        for (long i = 0; i < SIZE; i++) {
            if (targetMem.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i) != FILL) {
                throw new AssertionError(what + " modified target byte " + i);
            }
        }
    }

    private void assertWellBehavedWriteLands() {
        long end = System.nanoTime() + 5_000_000_000L;
        int rc;
        do {
            rc = initiator.ep.write(src.asSlice(0, 128), null, toTarget, remoteBase() + 256, targetMr.key(), "ok");
        } while (rc == -Errno.EAGAIN && System.nanoTime() < end);
        assertEquals(0, rc, "well-behaved write after the hostile ones");
        CqErrEntry err = new CqErrEntry();
        assertEquals(1, awaitCompletion(err), "well-behaved write failed: errno " + err.err);
        assertEquals(-1, targetMem.asSlice(256, 128).mismatch(src.asSlice(0, 128)), "written bytes differ");
        assertEquals(FILL, targetMem.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 255), "byte before the write changed");
        assertEquals(FILL, targetMem.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 384), "byte after the write changed");
    }
}
