package io.jfabric.provider.shm;

import io.jfabric.Access;
import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.BindFlags;
import io.jfabric.Counter;
import io.jfabric.CounterAttr;
import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import io.jfabric.OpFlags;
import io.jfabric.TaggedMsg;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * fi_cntr(3) on shm: counters bound for FI_SEND, FI_RECV, FI_READ, FI_WRITE, FI_REMOTE_READ and FI_REMOTE_WRITE
 * count every operation of their kind, whichever protocol carried it and whether or not it writes a CQ entry (an
 * inject's send counts when it is sent, as in libfabric's shm), failures on the error count; a counter wait drives
 * progress; and a counter can be neither closed while bound nor bound to another domain's endpoint.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class ShmCounterTest extends ShmPairFixture {
    /** Inline, bounce and CMA sizes. */
    private static final long[] SIZES = {40, 3000, 150_000};

    private final List<Counter> opened = new ArrayList<>();

    private Counter counter(ShmNode node, long flags) {
        Counter c = node.domain.openCounter(CounterAttr.defaults());
        opened.add(c);
        node.ep.bind(c, flags);
        return c;
    }

    /** A bound counter cannot close before its endpoint: the endpoints close first (the fixture closes the rest). */
    @AfterEach
    void closeCounters() {
        a.ep.close();
        b.ep.close();
        for (Counter c : opened) {
            c.close();
        }
    }

    /** Drives both nodes until {@code c} reaches {@code n} (or 10 s pass) and returns its value. */
    private long reach(Counter c, long n) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.read() < n && System.nanoTime() < deadline) {
            drive();
        }
        return c.read();
    }

    private void drive() {
        a.cq.read(new CqEntry[0], 0);
        b.cq.read(new CqEntry[0], 0);
    }

    @Test
    void sendAndReceiveCountersCountEveryProtocolAndInjects() {
        Counter sent = counter(a, BindFlags.TRANSMIT);
        Counter received = counter(b, BindFlags.RECV);
        for (long size : SIZES) {
            assertEquals(0, b.ep.recv(arena.allocate(size), null, Fabrics.ADDR_UNSPEC, "r" + size));
            assertEquals(0, a.ep.send(arena.allocate(size), null, aToB, "s" + size));
        }
        assertEquals(0, b.ep.recv(arena.allocate(64), null, Fabrics.ADDR_UNSPEC, "r-inject"));
        assertEquals(0, a.ep.inject(arena.allocate(64), aToB));
        TaggedMsg quiet = new TaggedMsg(1); // fi_tsendmsg with FI_INJECT: its buffer is free at once, and it completes
        quiet.iov[0] = arena.allocate(32);
        quiet.iovCount = 1;
        quiet.addr = aToB;
        quiet.tag = 5;
        assertEquals(0, b.ep.trecv(arena.allocate(32), null, Fabrics.ADDR_UNSPEC, 5, 0, "r-tagged"));
        assertEquals(0, a.ep.tsendmsg(quiet, OpFlags.INJECT));
        long n = SIZES.length + 2;
        assertEquals(n, reach(sent, n), "one count per send, the inject's included");
        assertEquals(n, reach(received, n), "one count per receive");
        assertEquals(0, sent.readError());
        assertEquals(0, received.readError());

        // a truncated receive counts as a receive error
        assertEquals(0, b.ep.recv(arena.allocate(8), null, Fabrics.ADDR_UNSPEC, "short"));
        assertEquals(0, a.ep.send(arena.allocate(64), null, aToB, "long"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (received.readError() < 1 && System.nanoTime() < deadline) {
            drive();
        }
        assertEquals(1, received.readError(), "ETRUNC counts on the error count");
        assertEquals(n, received.read());
    }

    /** a's FI_WRITE and FI_READ counters, b's FI_REMOTE_WRITE and FI_REMOTE_READ ones. */
    private record RmaCounters(Counter writes, Counter reads, Counter remoteWrites, Counter remoteReads) {
    }

    private RmaCounters rmaCounters() {
        return new RmaCounters(counter(a, BindFlags.WRITE), counter(a, BindFlags.READ), counter(b, BindFlags.REMOTE_WRITE),
                counter(b, BindFlags.REMOTE_READ));
    }

    @Test
    void rmaCountsOnTheInitiatorsReadAndWriteCountersAndTheTargetsRemoteOnes() {
        RmaCounters c = rmaCounters();
        MemorySegment target = arena.allocate(4096);
        MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0x61);
        try {
            long base = (b.info.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0 ? target.address() : 0;
            assertEquals(0, a.ep.write(arena.allocate(1000), null, aToB, base, 0x61, "w"));
            assertEquals(0, a.ep.injectWrite(arena.allocate(16), aToB, base + 2000, 0x61));
            assertEquals(0, a.ep.writedata(arena.allocate(8), null, 7, aToB, base + 3000, 0x61, "wd"));
            assertEquals(0, a.ep.read(arena.allocate(500), null, aToB, base, 0x61, "r"));
            assertEquals(3, reach(c.writes(), 3), "write, inject write and writedata");
            assertEquals(1, reach(c.reads(), 1));
            assertEquals(3, reach(c.remoteWrites(), 3), "every write that landed, with or without CQ data");
            assertEquals(1, reach(c.remoteReads(), 1));

            assertEquals(0, a.ep.write(arena.allocate(8), null, aToB, base, 0x6666, "bad key"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (c.writes().readError() < 1 && System.nanoTime() < deadline) {
                drive();
            }
            assertEquals(1, c.writes().readError(), "a refused write counts on the error count");
            assertEquals(3, c.remoteWrites().read(), "and not at the target");
        } finally {
            mr.close();
        }
    }

    /** fi_endpoint(3): a base atomic counts as a write, a fetch or compare as a read, on both sides. */
    @Test
    void atomicsCountAsWritesAndReadsOnBothSides() {
        RmaCounters c = rmaCounters();
        MemorySegment target = arena.allocate(64, 8);
        MemoryRegion mr = b.domain.registerMemory(target, Access.REMOTE_READ | Access.REMOTE_WRITE, 0x62);
        try {
            long base = (b.info.domainAttr.mrMode & MrMode.VIRT_ADDR) != 0 ? target.address() : 0;
            MemorySegment one = arena.allocate(8, 8).fill((byte) 1);
            MemorySegment result = arena.allocate(8, 8);
            assertEquals(0, a.ep.atomic(one, null, aToB, base, 0x62, AtomicDatatype.UINT64, AtomicOp.SUM, "sum"));
            assertEquals(0, a.ep.injectAtomic(one, aToB, base, 0x62, AtomicDatatype.UINT64, AtomicOp.SUM));
            assertEquals(0, a.ep.fetchAtomic(one, null, result, null, aToB, base + 8, 0x62, AtomicDatatype.UINT64,
                    AtomicOp.SUM, "fetch"));
            assertEquals(0, a.ep.compareAtomic(one, null, one, null, result, null, aToB, base + 16, 0x62,
                    AtomicDatatype.UINT64, AtomicOp.CSWAP, "compare"));
            assertEquals(2, reach(c.writes(), 2), "two base atomics, the inject's included");
            assertEquals(2, reach(c.reads(), 2), "a fetch and a compare");
            assertEquals(2, reach(c.remoteWrites(), 2));
            assertEquals(2, reach(c.remoteReads(), 2));
        } finally {
            mr.close();
        }
    }

    @Test
    void aCounterWaitDrivesProgressUntilTheMessagesArrive() throws Exception {
        Counter received = counter(b, BindFlags.RECV);
        for (int i = 0; i < 3; i++) {
            assertEquals(0, b.ep.recv(arena.allocate(64), null, Fabrics.ADDR_UNSPEC, "r" + i));
        }
        // the waiting thread is the only one driving b: its wait must progress the endpoint itself
        CompletableFuture<Integer> waiter = CompletableFuture.supplyAsync(() -> received.await(3, 20_000));
        for (int i = 0; i < 3; i++) {
            assertEquals(0, a.ep.inject(arena.allocate(64), aToB));
        }
        assertEquals(0, waiter.get(15, TimeUnit.SECONDS), "fi_cntr_wait returned when the third arrived");
        assertEquals(3, received.read());
        assertEquals(-Errno.ETIMEDOUT, received.await(4, 100), "and times out below its threshold");
    }

    @Test
    void aBoundCounterCannotCloseAndAnotherDomainsCannotBind() {
        Counter mine = a.domain.openCounter(CounterAttr.defaults());
        a.ep.bind(mine, BindFlags.TRANSMIT);
        assertEquals(Errno.EBUSY, assertThrows(FabricException.class, mine::close).errno(),
                "fi_close of a counter an endpoint is bound to");
        assertEquals(Errno.EINVAL, assertThrows(FabricException.class, () -> b.ep.bind(mine, BindFlags.RECV)).errno(),
                "a counter of another domain");
        a.ep.close();
        mine.close();
    }
}
