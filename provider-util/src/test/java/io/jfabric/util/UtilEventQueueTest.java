package io.jfabric.util;

import io.jfabric.EqAttr;
import io.jfabric.EqEntry;
import io.jfabric.EqErrEntry;
import io.jfabric.EqEvent;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.*;

@Timeout(30)
class UtilEventQueueTest {

    private static UtilEventQueue eq(int size) {
        EqAttr a = EqAttr.defaults();
        a.size = size;
        return new UtilEventQueue(a, ProgressHook.NONE);
    }

    @Test
    void cmEventsCarryInfoAndCmData() {
        var q = eq(8);
        Object pep = "pep", ep = "ep", av = "av", mr = "mr";
        FabricInfo info = FabricInfo.hints();
        info.handle = "connreq-1";
        byte[] cm = {9, 8, 7};
        q.postConnReq(pep, "pctx", info, cm);
        q.postConnected(ep, "ectx", new byte[] {1});
        q.postShutdown(ep, "ectx");
        q.postMrComplete(mr, null);
        q.postAvComplete(av, "avctx", 3);

        EqEntry e = new EqEntry();
        assertEquals(EqEvent.CONNREQ, q.read(e, 0));
        assertSame(pep, e.fid);
        assertSame(info, e.info);
        assertEquals("connreq-1", e.info.handle);
        assertArrayEquals(cm, e.cmData);
        assertEquals(EqEvent.CONNECTED, q.read(e, 0));
        assertSame(ep, e.fid);
        assertArrayEquals(new byte[] {1}, e.cmData);
        assertEquals(EqEvent.SHUTDOWN, q.read(e, 0));
        assertEquals(EqEvent.MR_COMPLETE, q.read(e, 0));
        assertSame(mr, e.fid);
        assertEquals(EqEvent.AV_COMPLETE, q.read(e, 0));
        assertEquals(3, e.data);
        assertEquals("avctx", e.context);
        assertEquals(-Errno.EAGAIN, q.read(e, 0));
    }

    @Test
    void peekLeavesTheEventQueued() {
        var q = eq(8);
        q.postShutdown("ep", null);
        EqEntry e = new EqEntry();
        assertEquals(EqEvent.SHUTDOWN, q.read(e, OpFlags.PEEK));
        assertEquals(1, q.size());
        assertEquals(EqEvent.SHUTDOWN, q.read(e, 0));
        assertEquals(0, q.size());
    }

    @Test
    void errorAtHeadIsEavailWithErrData() {
        var q = eq(8);
        q.postConnected("ep1", null, null);
        byte[] reject = "go away".getBytes();
        q.postError("ep2", "ctx2", 0, Errno.ECONNREFUSED, 5, reject);
        q.postShutdown("ep1", null);
        EqEntry e = new EqEntry();
        assertEquals(EqEvent.CONNECTED, q.read(e, 0));
        assertEquals(-Errno.EAVAIL, q.read(e, 0));
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, q.readError(err, OpFlags.PEEK));
        assertEquals(1, q.readError(err, 0));
        assertEquals(Errno.ECONNREFUSED, err.err);
        assertEquals(5, err.provErrno);
        assertSame(reject, err.errData);
        assertEquals("ep2", err.fid);
        assertEquals(-Errno.EAGAIN, q.readError(err, 0));
        assertEquals(EqEvent.SHUTDOWN, q.read(e, 0));
    }

    @Test
    void applicationWriteAndWriteErrorCopyTheEntry() {
        var q = eq(2);
        EqEntry mine = new EqEntry().set(EqEvent.NOTIFY, "f", "c", 11, null, null);
        q.write(mine, 0);
        mine.data = 99;
        q.writeError(new EqErrEntry().set("f", "c", 1, Errno.EIO, 0, null), 0);
        assertEquals(Errno.EAGAIN, assertThrows(FabricException.class, () -> q.write(mine, 0)).errno(),
                "a full EQ refuses the application's write");
        EqEntry e = new EqEntry();
        assertEquals(EqEvent.NOTIFY, q.read(e, 0));
        assertEquals(11, e.data, "the EQ copied the entry at write time");
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, q.readError(err, 0));
        assertEquals(Errno.EIO, err.err);
    }

    @Test
    void providerOverflowIsReportedAsEoverrun() {
        var q = eq(2);
        assertEquals(0, q.postShutdown("a", null));
        assertEquals(0, q.postShutdown("b", null));
        assertEquals(-Errno.EOVERRUN, q.postShutdown("c", null));
        assertEquals(-Errno.EOVERRUN, q.postShutdown("d", null));
        EqEntry e = new EqEntry();
        assertEquals(EqEvent.SHUTDOWN, q.read(e, 0));
        assertEquals(EqEvent.SHUTDOWN, q.read(e, 0));
        assertEquals(-Errno.EAVAIL, q.read(e, 0));
        EqErrEntry err = new EqErrEntry();
        assertEquals(1, q.readError(err, 0));
        assertEquals(Errno.EOVERRUN, err.err);
        assertEquals(2, err.data, "two events were lost");
        assertEquals(0, q.postShutdown("e", null), "room again after draining");
    }

    @Test
    void sreadWakesOnPostAndTimesOut() throws Exception {
        var q = eq(8);
        EqEntry e = new EqEntry();
        long t0 = System.nanoTime();
        assertEquals(-Errno.EAGAIN, q.sread(e, 80, 0));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms >= 75 && ms < 2000, "waited " + ms);
        Thread t = Thread.ofPlatform().start(() -> {
            UtilCompletionQueueTest.sleep(50);
            q.postConnected("ep", null, null);
        });
        t0 = System.nanoTime();
        assertEquals(EqEvent.CONNECTED, q.sread(e, 10_000, 0));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < 2000);
        t.join();
    }

    @Test
    void readsDriveManualProgress() {
        AtomicInteger calls = new AtomicInteger();
        UtilEventQueue[] self = new UtilEventQueue[1];
        self[0] = new UtilEventQueue(EqAttr.defaults(), () -> {
            if (calls.incrementAndGet() == 3) {
                self[0].postConnected("ep", null, null);
            }
            return 0;
        });
        EqEntry e = new EqEntry();
        assertEquals(-Errno.EAGAIN, self[0].read(e, 0));
        assertEquals(EqEvent.CONNECTED, self[0].sread(e, 5000, 0));
        assertEquals(3, calls.get());
    }

    @Test
    void closedEqRefusesWrites() {
        var q = eq(4);
        q.close();
        assertEquals(-Errno.EBADF, q.postShutdown("x", null));
        assertEquals(Errno.EBADF, assertThrows(FabricException.class,
                () -> q.write(new EqEntry(), 0)).errno());
    }
}
