package io.jfabric.examples.rpc;

import io.jfabric.Errno;
import io.jfabric.examples.rpc.Wire.MutableLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two engines in one JVM (the server with a progress thread, served by a trigger thread): a round trip
 * with a codec, and bad input refused with a clear errno that loses nothing.
 */
class EngineBasicsTest {
    static final int ECHO = 100;
    static final int NOT_SERVED = 101;

    /** Input larger than any payload: its codec claims more than fits. */
    static final Codec<MutableLong> HUGE = new Codec<>() {
        @Override
        public long encode(MutableLong value, MemorySegment out) {
            return out.byteSize() < 1 << 20 ? -1 : 0;
        }

        @Override
        public MutableLong decode(MemorySegment in, MutableLong reuse) {
            return reuse;
        }
    };

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jfabric.examples.rpc.Providers#all")
    @Timeout(60)
    void roundTripsAndRefusals(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        try (RpcEngine server = RpcEngine.open(provider, EngineOptions.defaults().progressThread(true));
             RpcEngine client = RpcEngine.open(provider, EngineOptions.defaults())) {
            server.register(ECHO, "echo-plus-one", Wire.LONG_CODEC, Wire.LONG_CODEC,
                    r -> r.respond(new MutableLong().set(r.input().value + 1)));
            server.register(NOT_SERVED, "not-served", Wire.LONG_CODEC, Wire.LONG_CODEC, null);
            Thread trigger = Thread.ofPlatform().daemon().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    server.progress(10);
                    server.trigger(64);
                }
            });
            try {
                Rpc<MutableLong, MutableLong> echo = client.register(ECHO, "echo-plus-one", Wire.LONG_CODEC,
                        Wire.LONG_CODEC, null);
                Rpc<MutableLong, MutableLong> notServed = client.register(NOT_SERVED, "not-served", Wire.LONG_CODEC,
                        Wire.LONG_CODEC, null);
                Rpc<MutableLong, MutableLong> huge = client.register(102, "huge", HUGE, Wire.LONG_CODEC, null);
                Target t = client.lookup(server.selfAddress(), 20_000);
                for (long i = 0; i < 200; i++) {
                    long out = Sync.call(client, t, echo, new MutableLong().set(i), 10_000,
                            v -> new MutableLong().set(v.value)).value;
                    assertEquals(i + 1, out, "echo of " + i);
                }
                var e = assertThrows(io.jfabric.FabricException.class,
                        () -> Sync.call(client, t, notServed, new MutableLong(), 10_000, v -> v));
                assertEquals(Errno.ENOSYS, e.errno(), "an RPC the server registered without a handler: " + e.getMessage());
                assertEquals(-Errno.EMSGSIZE, client.forward(t, huge, new MutableLong(), null, 1000,
                        (id, st, out, arg) -> { }, null), "input larger than the payload limit");
                assertThrows(IllegalArgumentException.class,
                        () -> client.register(ECHO, "again", Wire.LONG_CODEC, Wire.LONG_CODEC, null));
                assertThrows(IllegalArgumentException.class,
                        () -> client.bulkRegister(MemorySegment.ofArray(new byte[16])));
                // nothing was lost to the refusals: the engine still answers
                assertEquals(8, Sync.call(client, t, echo, new MutableLong().set(7), 10_000,
                        v -> new MutableLong().set(v.value)).value);
                assertTrue(!t.isDead());
            } finally {
                trigger.interrupt();
                trigger.join(5_000);
            }
        }
    }

    /**
     * A server whose application buffers are all taken by requests it holds still answers the engine's
     * pings (they have receives of their own): its requests end by their own timeout, not as a dead target.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jfabric.examples.rpc.Providers#all")
    @Timeout(60)
    void aServerHoldingEveryBufferIsNotDeclaredDead(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        EngineOptions serverOpts = EngineOptions.defaults().progressThread(true);
        serverOpts.incomingSlots = 4;
        try (RpcEngine server = RpcEngine.open(provider, serverOpts);
             RpcEngine client = RpcEngine.open(provider, EngineOptions.defaults().peerTimeoutMillis(600))) {
            java.util.List<Incoming<MutableLong, MutableLong>> held = new java.util.ArrayList<>();
            server.register(ECHO, "hold", Wire.LONG_CODEC, Wire.LONG_CODEC, held::add);
            Thread trigger = Thread.ofPlatform().daemon().start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    server.progress(10);
                    server.trigger(64);
                }
            });
            try {
                Rpc<MutableLong, MutableLong> hold = client.register(ECHO, "hold", Wire.LONG_CODEC, Wire.LONG_CODEC, null);
                Target t = client.lookup(server.selfAddress(), 20_000);
                int requests = 6; // more than the server has buffers for
                int[] status = new int[requests];
                int[] done = {0};
                for (int i = 0; i < requests; i++) {
                    long id = client.forward(t, hold, new MutableLong().set(i), null, 3_000,
                            (rid, st, out, arg) -> {
                                status[(Integer) arg] = st;
                                done[0]++;
                            }, i);
                    assertTrue(id >= 0, Errno.name((int) -id));
                }
                Waiter.until(client, () -> done[0] == requests, 15_000, "held requests");
                for (int i = 0; i < requests; i++) {
                    assertEquals(-Errno.ETIMEDOUT, status[i], "request " + i + " ends by its own timeout");
                }
                assertTrue(!t.isDead(), "a busy server that answers pings is alive");
            } finally {
                trigger.interrupt();
                trigger.join(5_000);
            }
        }
    }
}
