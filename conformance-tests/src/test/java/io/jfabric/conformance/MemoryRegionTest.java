package io.jfabric.conformance;

import io.jfabric.Access;
import io.jfabric.Caps;
import io.jfabric.CqEntry;
import io.jfabric.CqErrEntry;
import io.jfabric.Domain;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.MemoryRegion;
import io.jfabric.MrMode;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * fabtests mr_test: every combination of access flags registers and reports its access and a distinct key; a
 * requested key already in use is refused; a buffer registers twice and re-registers after close, and RMA goes
 * through the new registration while the closed key is refused.
 */
@Timeout(60)
class MemoryRegionTest {
    static final long T = 10_000;
    private static final long[] BITS = {Access.SEND, Access.RECV, Access.READ, Access.WRITE, Access.REMOTE_READ,
            Access.REMOTE_WRITE};

    @RegisterExtension
    final StateDump dump = new StateDump();

    private Domain openDomain(FabricCase c) {
        return OpenDomain.of(c, dump).domain();
    }

    private static boolean providerKeys(FabricCase c) {
        return (c.info().domainAttr.mrMode & MrMode.PROV_KEY) != 0;
    }

    /** The access bits this case's caps allow: remote/RMA bits only with FI_RMA. */
    private static long allowedAccess(FabricCase c) {
        long allowed = Access.SEND | Access.RECV;
        if (c.hasCaps(Caps.RMA)) {
            allowed |= Access.READ | Access.WRITE | Access.REMOTE_READ | Access.REMOTE_WRITE;
        }
        return allowed;
    }

    @ForEachFabric
    void everyAccessCombinationRegistersWithADistinctKey(FabricCase c) {
        Domain domain = openDomain(c);
        long allowed = allowedAccess(c);
        Set<Long> keys = new HashSet<>();
        int combos = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = Mem.alloc(arena, 8192);
            for (int mask = 1; mask < 1 << BITS.length; mask++) {
                long access = 0;
                for (int b = 0; b < BITS.length; b++) {
                    if ((mask & 1 << b) != 0) {
                        access |= BITS[b];
                    }
                }
                if ((access & ~allowed) != 0) {
                    continue;
                }
                combos++;
                long a = access;
                MemoryRegion mr = dump.track(domain.registerMemory(buf.asSlice(mask * 64L, 4096), access, 0,
                        0x7000 + mask, 0));
                assertEquals(a, mr.access() & a, "the registration reports the access " + Access.toString(a));
                // a key is what a peer names the region by: it must be unique when peers may use it (remote
                // access) or when the application chose it; a provider-chosen key of a local-only region
                // names nothing (verbs hands out one key for cached local registrations, as libfabric's)
                boolean remote = (a & (Access.REMOTE_READ | Access.REMOTE_WRITE)) != 0;
                if (remote || !providerKeys(c)) {
                    assertTrue(keys.add(mr.key()), "key " + mr.key() + " of " + Access.toString(a)
                            + " is already taken by another open registration");
                }
            }
        }
        assertTrue(combos >= 3, "at least the FI_SEND/FI_RECV combinations ran");
    }

    @ForEachFabric
    void aRequestedKeyAlreadyInUseIsRefused(FabricCase c) {
        Gate.require(!providerKeys(c), c, "uses FI_MR_PROV_KEY: the provider picks keys, so none can collide");
        Gate.rma(c);
        Domain domain = openDomain(c);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment one = Mem.alloc(arena, 4096);
            MemorySegment two = Mem.alloc(arena, 4096);
            MemoryRegion first = dump.track(domain.registerMemory(one, Access.REMOTE_WRITE, 0, 0xC0FFEE, 0));
            FabricException e = assertThrows(FabricException.class,
                    () -> dump.track(domain.registerMemory(two, Access.REMOTE_WRITE, 0, 0xC0FFEE, 0)),
                    "a second registration asking for key 0xC0FFEE");
            assertEquals(Errno.ENOKEY, e.errno(), "fi_mr(3): a requested key in use is FI_ENOKEY: " + e.getMessage());
            assertEquals(0xC0FFEE, first.key(), "the first registration keeps its key");
            dump.close(first);
            MemoryRegion again = dump.track(domain.registerMemory(two, Access.REMOTE_WRITE, 0, 0xC0FFEE, 0));
            assertEquals(0xC0FFEE, again.key(), "a closed registration's key can be requested again");
        }
    }

    @ForEachFabric
    void aBufferRegisteredTwiceAndReRegisteredAfterCloseServesRma(FabricCase c) {
        Gate.rma(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment target = Mem.alloc(arena, 4096);
            Mem.fill(target, (byte) 0);
            MemoryRegion first = p.b.register(target, Access.REMOTE_WRITE | Access.REMOTE_READ);
            MemoryRegion second = p.b.register(target, Access.REMOTE_WRITE | Access.REMOTE_READ);
            assertTrue(first.key() != second.key(), "two open registrations of one buffer have distinct keys");
            MemorySegment src = Mem.alloc(arena, 4096);
            Mem.fill(src, 61);
            write(p, src, second, "through the second registration");
            awaitTarget(p, target, 61);
            long closedKey = first.key();
            dump.close(first);
            dump.close(second);
            MemoryRegion third = p.b.register(target, Access.REMOTE_WRITE | Access.REMOTE_READ);
            Mem.fill(src, 62);
            write(p, src, third, "through the re-registration");
            awaitTarget(p, target, 62);
            if (third.key() != closedKey) {
                Mem.fill(src, 63);
                p.poller.post("fi_write with the closed key", () -> p.a.ep.write(src, p.a.desc(src), p.a.peer,
                        p.b.remoteAddr(third, 0), closedKey, "stale"));
                CqErrEntry err = p.poller.expectError(p.a.txCq, T, "fi_write through a closed registration's key");
                assertTrue(err.err != 0, "error " + err);
                assertEquals(-1, Mem.mismatch(target, 62), "a write through a closed key leaves the buffer alone");
            }
        }
    }

    private static void write(EndpointPair p, MemorySegment src, MemoryRegion mr, String what) {
        p.poller.post("fi_write " + what, () -> p.a.ep.write(src, p.a.desc(src), p.a.peer, p.b.remoteAddr(mr, 0),
                mr.key(), what));
        p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "fi_write " + what);
    }

    private static void awaitTarget(EndpointPair p, MemorySegment target, long seed) {
        long until = System.nanoTime() + T * 1_000_000L;
        while (Mem.mismatch(target, seed) != -1 && System.nanoTime() < until) {
            p.poller.drive();
        }
        assertEquals(-1, Mem.mismatch(target, seed), "target after the write");
    }
}
