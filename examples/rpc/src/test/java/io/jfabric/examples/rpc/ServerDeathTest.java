package io.jfabric.examples.rpc;

import io.jfabric.Errno;
import io.jfabric.examples.rpc.Wire.ChunkReply;
import io.jfabric.examples.rpc.Wire.ChunkRequest;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.lang.foreign.Arena;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A server JVM killed (SIGKILL) while it holds requests: every outstanding RPC of the client fails with
 * an error within a bound set by the peer timeout, though each request's own timeout is far longer,
 * and later forwards to the dead target fail at once.
 */
class ServerDeathTest {
    static final long PEER_TIMEOUT_MS = 1_500;
    static final long BOUND_MS = 15_000;
    static final int REQUESTS = 4;
    /** How soon FI_JF_PEER_FAILED must end them (the tools' 2 s aim, doubled for a busy machine). */
    static final long EVENT_BOUND_MS = 4_000;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jfabric.examples.rpc.Providers#all")
    @Timeout(90)
    void outstandingRequestsFailWhenTheServerDies(String provider) throws Exception {
        Providers.assumeAvailable(provider);
        killTheServerUnderOutstandingRequests(provider, PEER_TIMEOUT_MS, BOUND_MS);
    }

    /**
     * On jfabric's own RDM providers the engine hears FI_JF_PEER_FAILED on its EQ: with pings too slow to
     * matter (a minute), the requests still fail within {@link #EVENT_BOUND_MS} of the kill.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("io.jfabric.examples.rpc.Providers#all")
    @Timeout(90)
    void thePeerFailureEventFailsThemWithoutPings(String provider) throws Exception {
        Assumptions.assumeFalse(provider.startsWith("libfabric:"), "libfabric's providers raise no"
                + " FI_JF_PEER_FAILED (a jfabric extension); only the pings tell there");
        Providers.assumeAvailable(provider);
        long took = killTheServerUnderOutstandingRequests(provider, 60_000, EVENT_BOUND_MS);
        assertTrue(took < EVENT_BOUND_MS, "the requests failed " + took + " ms after the kill");
    }

    private long killTheServerUnderOutstandingRequests(String provider, long peerTimeoutMs, long boundMs)
            throws Exception {
        try (ServerProcess server = ServerProcess.server(dir, provider);
             RpcEngine engine = RpcEngine.open(provider, EngineOptions.defaults().peerTimeoutMillis(peerTimeoutMs));
             Arena arena = Arena.ofShared()) {
            FileRpcs rpcs = new FileRpcs(engine);
            Target target = engine.lookup(server.address(dir), 20_000);
            BulkHandle bulk = engine.bulkRegister(arena.allocate(4096, 4096));
            int[] status = new int[REQUESTS];
            int[] done = new int[1];
            ResponseCallback<ChunkReply> cb = (id, st, out, arg) -> {
                status[(Integer) arg] = st;
                done[0]++;
            };
            for (int i = 0; i < REQUESTS; i++) {
                ChunkRequest in = new ChunkRequest();
                bulk.describe(in.bulk);
                in.length = 4096;
                in.delayMillis = 120_000; // the server holds them: only its death can end them early
                long id = engine.forward(target, rpcs.delayedPull, in, null, 120_000, cb, i);
                assertTrue(id >= 0, "forward " + i + ": " + Errno.name((int) -id));
            }
            // let the requests reach the server, then kill it
            long until = System.nanoTime() + 500_000_000L;
            while (System.nanoTime() < until) {
                engine.progress(10);
                engine.trigger(64);
            }
            assertEquals(0, done[0], "no request may end while the server holds them");
            server.kill();
            long took = Waiter.until(engine, () -> done[0] == REQUESTS, boundMs, "outstanding RPCs after the server died");
            for (int i = 0; i < REQUESTS; i++) {
                assertTrue(status[i] < 0, "request " + i + " ended with an error, not " + status[i]);
            }
            assertTrue(target.isDead(), "the target is marked dead");
            long again = engine.forward(target, rpcs.empty, null, null, 1000, (id, st, out, arg) -> { }, null);
            assertEquals(-Errno.EHOSTDOWN, again, "a forward to a dead target fails at once");
            System.out.println(provider + ": outstanding RPCs failed " + took + " ms after the kill with "
                    + Errno.name(-status[0]) + " (peer timeout " + peerTimeoutMs + " ms)");
            bulk.release();
            return took;
        }
    }
}
