package io.jfabric.provider.tcp;

import static org.junit.jupiter.api.Assertions.*;

import io.jfabric.Access;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.MemoryRegion;
import io.jfabric.OpFlags;
import io.jfabric.Progress;
import io.jfabric.RmaMsg;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * RMA over the tcp wire protocol: writes and reads land in (or come from) the registered region at the
 * offset the initiator names, and a bad key, range or access closes the connection without touching the
 * target's memory.
 */
@Timeout(60)
class RmaTest {
    private final Arena arena = Arena.ofShared();
    private Loopback p;
    private MemorySegment target;
    private MemoryRegion mr;

    @AfterEach
    void tearDown() {
        if (mr != null) {
            mr.close();
        }
        if (p != null) {
            p.close();
        }
        arena.close();
    }

    private void setUp(long access) {
        p = new Loopback(false, Progress.MANUAL, null, null);
        target = arena.allocate(1 << 20, 64);
        for (int i = 0; i < target.byteSize(); i++) {
            target.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7));
        }
        mr = p.server.domain.registerMemory(target, access, 0xC0DEL);
    }

    private MemorySegment pattern(int n, int seed) {
        MemorySegment s = arena.allocate(n);
        for (int i = 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i + seed));
        }
        return s;
    }

    @Test
    void writeLandsAtTheOffsetAndWritedataRaisesATargetCompletion() {
        setUp(Access.REMOTE_WRITE | Access.REMOTE_READ);
        MemorySegment src = pattern(300_000, 1);
        assertEquals(0, p.client.ep.write(src, null, 0, 1000, mr.key(), "w"));
        CqEntry e = p.client.waitCq(10_000);
        assertEquals("w", e.context);
        assertEquals(OpFlags.RMA | OpFlags.WRITE, e.flags);
        // the write has no target completion; drive the server until the bytes are there
        CqEntry[] none = {new CqEntry()};
        long deadline = System.currentTimeMillis() + 10_000;
        while (target.asSlice(1000, src.byteSize()).mismatch(src) != -1 && System.currentTimeMillis() < deadline) {
            assertEquals(-Errno.EAGAIN, p.server.cq.read(none, 1));
        }
        assertEquals(-1, target.asSlice(1000, src.byteSize()).mismatch(src));
        assertEquals((byte) (999 * 7), target.get(ValueLayout.JAVA_BYTE, 999), "byte before the range changed");

        MemorySegment small = pattern(64, 9);
        assertEquals(0, p.client.ep.writedata(small, null, 0xfeedL, 0, 0, mr.key(), "wd"));
        CqEntry t = p.server.waitCq(10_000);
        assertEquals(0xfeedL, t.data);
        assertEquals(64, t.len);
        assertTrue((t.flags & OpFlags.REMOTE_WRITE) != 0 && (t.flags & OpFlags.REMOTE_CQ_DATA) != 0);
        assertEquals(-1, target.asSlice(0, 64).mismatch(small));
        assertEquals("wd", p.client.waitCq(10_000).context);
    }

    @Test
    void readAndReadvFetchTheRegion() {
        setUp(Access.REMOTE_READ);
        MemorySegment dst = arena.allocate(200_000);
        assertEquals(0, p.client.ep.read(dst, null, 0, 4096, mr.key(), "r"));
        CqEntry e = p.client.waitCq(10_000);
        assertEquals("r", e.context);
        assertEquals(OpFlags.RMA | OpFlags.READ, e.flags);
        assertEquals(-1, dst.mismatch(target.asSlice(4096, 200_000)));

        MemorySegment whole = arena.allocate(10_000);
        MemorySegment[] iov = {whole.asSlice(0, 10), whole.asSlice(10, 9000), whole.asSlice(9010, 990)};
        assertEquals(0, p.client.ep.readv(iov, null, 3, 0, 77, mr.key(), "rv"));
        assertEquals("rv", p.client.waitCq(10_000).context);
        assertEquals(-1, whole.mismatch(target.asSlice(77, 10_000)));

        RmaMsg m = new RmaMsg();
        MemorySegment two = arena.allocate(200);
        m.set(two, null, 0, "rm");
        m.rmaIov[0].set(0, 100, mr.key());
        m.rmaIov[1].set(5000, 100, mr.key());
        m.rmaIovCount = 2;
        assertEquals(0, p.client.ep.readmsg(m, 0));
        assertEquals("rm", p.client.waitCq(10_000).context);
        assertEquals(-1, two.asSlice(0, 100).mismatch(target.asSlice(0, 100)));
        assertEquals(-1, two.asSlice(100, 100).mismatch(target.asSlice(5000, 100)));
        m.rmaIov[1].set(5000, 99, mr.key());
        assertEquals(-Errno.EINVAL, p.client.ep.readmsg(m, 0), "local and remote lengths differ");
    }

    private void expectRefused(int targetErr) {
        CqErrEntry err = p.client.waitCqError(10_000);
        assertEquals("bad", err.context);
        assertEquals(Errno.ECONNRESET, err.err);
        EqErrEntry te = p.server.waitEqError(10_000);
        assertEquals(targetErr, te.err);
        EqEntry sd = p.server.waitEq(EqEvent.SHUTDOWN, 10_000);
        assertSame(p.server.ep, sd.fid);
        p.client.waitEq(EqEvent.SHUTDOWN, 10_000);
    }

    @Test
    void wrongKeyClosesTheConnectionAndLeavesTheTargetUntouched() {
        setUp(Access.REMOTE_WRITE | Access.REMOTE_READ);
        MemorySegment before = arena.allocate(target.byteSize());
        before.copyFrom(target);
        assertEquals(0, p.client.ep.write(pattern(64, 3), null, 0, 0, mr.key() + 1, "bad"));
        expectRefused(Errno.ENOKEY);
        assertEquals(-1, target.mismatch(before));
    }

    @Test
    void outOfRangeWriteIsRefused() {
        setUp(Access.REMOTE_WRITE | Access.REMOTE_READ);
        MemorySegment before = arena.allocate(target.byteSize());
        before.copyFrom(target);
        assertEquals(0, p.client.ep.write(pattern(64, 3), null, 0, target.byteSize() - 32, mr.key(), "bad"));
        expectRefused(Errno.EINVAL);
        assertEquals(-1, target.mismatch(before));
    }

    @Test
    void keyWithoutWriteAccessIsRefused() {
        setUp(Access.REMOTE_READ);
        MemorySegment before = arena.allocate(target.byteSize());
        before.copyFrom(target);
        assertEquals(0, p.client.ep.write(pattern(64, 3), null, 0, 0, mr.key(), "bad"));
        expectRefused(Errno.EACCES);
        assertEquals(-1, target.mismatch(before));
    }

    @Test
    void readThroughAClosedKeyIsRefused() {
        setUp(Access.REMOTE_READ);
        mr.close();
        mr = null;
        assertEquals(0, p.client.ep.read(arena.allocate(16), null, 0, 0, 0xC0DEL, "bad"));
        expectRefused(Errno.ENOKEY);
    }
}
