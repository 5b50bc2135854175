package io.jfabric.conformance;

import io.jfabric.CqEntry;
import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.Msg;
import io.jfabric.OpFlags;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The completion levels of fi_cq(3) as op_flags: hints that ask for a level match exactly the providers whose
 * info advertises it, and a send that asks for one completes no earlier than the level says: FI_INJECT_COMPLETE
 * once the buffer may be reused, FI_TRANSMIT_COMPLETE once sent, FI_DELIVERY_COMPLETE once the data is in the
 * peer's receive buffer. A jfabric provider refuses a level it does not advertise, per operation with
 * -FI_EINVAL and at endpoint open with EINVAL.
 */
@Timeout(60)
class CompletionLevelTest {
    static final long T = 20_000;
    /** The levels and FI_COMPLETION, as hints may ask for them in tx_attr.op_flags. */
    static final long[] HINTED = {OpFlags.COMPLETION, OpFlags.INJECT_COMPLETE, OpFlags.TRANSMIT_COMPLETE,
        OpFlags.DELIVERY_COMPLETE, OpFlags.COMMIT_COMPLETE};
    /** The levels a send may ask for. */
    static final long[] LEVELS = {OpFlags.INJECT_COMPLETE, OpFlags.TRANSMIT_COMPLETE, OpFlags.DELIVERY_COMPLETE,
        OpFlags.COMMIT_COMPLETE};

    @RegisterExtension
    final StateDump dump = new StateDump();

    static boolean advertises(FabricCase c, long level) {
        return (c.info().txAttr.opFlags & level) == level;
    }

    static boolean isNative(FabricCase c) {
        return c.provider().startsWith("libfabric:");
    }

    @ForEachFabric
    void hintsAskingForALevelMatchTheProvidersThatAdvertiseIt(FabricCase c) {
        for (long level : HINTED) {
            // the mode bits the provider asks for (verbs: FI_RX_CQ_DATA), so that only op_flags can decline
            long mode = c.info().mode | (c.info().rxAttr == null ? 0 : c.info().rxAttr.mode);
            FabricInfo hints = Hints.create().provider(c.provider()).epType(c.epType()).mode(mode)
                    .mrMode(GetInfoTest.appMrMode(c)).txOpFlags(level).build();
            String what = c.id() + " asked for tx op_flags " + OpFlags.toString(level);
            if (advertises(c, level)) {
                List<FabricInfo> infos = Fabrics.getInfo(hints);
                assertFalse(infos.isEmpty(), what);
                for (FabricInfo i : infos) {
                    assertEquals(level, i.txAttr.opFlags, what + ": the hints' op_flags are the result's defaults");
                }
            } else if (isNative(c)) {
                // libfabric is the oracle here: a null-hints info need not list every flag its matching accepts
                for (FabricInfo i : nativeMatches(hints)) {
                    assertEquals(level, i.txAttr.opFlags, what + ": the hints' op_flags are the result's defaults");
                }
            } else {
                FabricException e = assertThrows(FabricException.class, () -> Fabrics.getInfo(hints), what
                        + ", which its info does not advertise (" + OpFlags.toString(c.info().txAttr.opFlags) + ")");
                assertEquals(Errno.ENODATA, e.errno(), what);
                assertTrue(e.getMessage().contains("op_flags"), what + ": the no-match reason names op_flags: "
                        + e.getMessage());
            }
        }
    }

    private static List<FabricInfo> nativeMatches(FabricInfo hints) {
        try {
            return Fabrics.getInfo(hints);
        } catch (FabricException e) {
            assertEquals(Errno.ENODATA, e.errno(), e.getMessage());
            return List.of();
        }
    }

    @ForEachFabric
    void aSendCompletesAtTheLevelItAsksFor(FabricCase c) {
        Gate.messaging(c);
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofConfined()) {
            int tested = 0;
            for (long level : LEVELS) {
                if (!advertises(c, level)) {
                    continue;
                }
                tested++;
                MemorySegment r = Mem.alloc(arena, 64);
                MemorySegment t = Mem.alloc(arena, 64);
                Mem.fill(t, level);
                String ctx = c.id() + " " + OpFlags.toString(level);
                p.poller.post("fi_recv", () -> p.b.ep.recv(r, p.b.desc(r), Fabrics.ADDR_UNSPEC, "r " + ctx));
                Msg m = new Msg(1).set(t, p.a.desc(t), p.a.peer, ctx);
                p.poller.post("fi_sendmsg with " + ctx, () -> p.a.ep.sendmsg(m, level | OpFlags.COMPLETION));
                assertSame(ctx, p.poller.expectSuccess(p.a.txCq, new CqEntry(), T, "send with " + ctx).context);
                if (level == OpFlags.DELIVERY_COMPLETE || level == OpFlags.COMMIT_COMPLETE && !isNative(c)) {
                    // delivered: the bytes are in the receive buffer before the receiver's CQ is read
                    assertEquals(-1, Mem.mismatch(r, level),
                            ctx + ": data in the receive buffer at the send's completion");
                }
                // the buffer may be reused now: what the receiver gets is what was sent
                Mem.fill(t, (byte) 0);
                assertEquals("r " + ctx, p.poller.expectSuccess(p.b.rxCq, new CqEntry(), T, "receive").context);
                assertEquals(-1, Mem.mismatch(r, level), ctx + ": the receive holds the bytes sent");
            }
            Gate.require(tested > 0, c, "advertises no completion level in tx op_flags");
        }
    }

    @ForEachFabric
    void aLevelNotAdvertisedIsRefused(FabricCase c) {
        Gate.messaging(c);
        Gate.require(!isNative(c), c, "is a native provider; libfabric's providers do not check per-operation flags");
        long refused = 0;
        for (long level : new long[] {OpFlags.DELIVERY_COMPLETE, OpFlags.COMMIT_COMPLETE, OpFlags.MATCH_COMPLETE}) {
            if (!advertises(c, level)) {
                refused = level;
                break;
            }
        }
        Gate.require(refused != 0, c, "advertises every completion level");
        long level = refused;
        EndpointPair p = EndpointPair.open(c, dump);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment t = Mem.alloc(arena, 16);
            Msg m = new Msg(1).set(t, p.a.desc(t), p.a.peer, "refused");
            assertEquals(-Errno.EINVAL, p.poller.tryPost(() -> p.a.ep.sendmsg(m, level)),
                    "fi_sendmsg with " + OpFlags.toString(level));
            p.poller.expectQuiet(p.a.txCq, 100, "no completion for a refused send");
        }
        EndpointPair.Options o = new EndpointPair.Options();
        o.alterInfo = i -> i.txAttr.opFlags |= level;
        FabricException e = assertThrows(FabricException.class, () -> EndpointPair.open(c, dump, o),
                "an endpoint whose default tx op_flags hold " + OpFlags.toString(level));
        assertEquals(Errno.EINVAL, e.errno(), e.getMessage());
    }
}
