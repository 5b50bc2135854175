package io.jfabric.bench;

import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The zero-allocation contract of the data path (DESIGN.md: "no allocation per operation once warm"),
 * enforced by a count: a stream of 64-byte messages (send/recv, and tagged send/recv, each also with the
 * receives posted to a shared receive context, fi_srx_context), or of FI_SUM atomics (plain and fetching) on
 * one INT64 of the receiver's memory, runs through each
 * provider with its progress threads, after a warm-up, for a short and for a long run; the bytes all
 * involved threads allocate (ThreadMXBean#getThreadAllocatedBytes) may include a small fixed amount, but
 * the difference between the runs, over at least 1,000,000 extra messages, must be zero per message.
 * A provider that is not on the class path, or lacks the capability, is reported "not run".
 */
class AllocationTest {
    static final long SIZE = 64;
    static final long WARMUP = 200_000;
    static final long SHORT = 100_000;
    static final long LONG = SHORT + 1_000_000;
    /** A fixed total the long run may exceed the short one by (lazy one-time structures, JIT-triggered class init). */
    static final long FIXED_SLACK_BYTES = 16 * 1024;

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({
        "tcp, MSG, msg",
        "tcp, MSG, tagged",
        "shm, RDM, msg",
        "shm, RDM, tagged",
        "tcp;ofi_rxm, RDM, msg",
        "tcp;ofi_rxm, RDM, tagged",
        "shm, RDM, srx msg",
        "shm, RDM, srx tagged",
        "tcp;ofi_rxm, RDM, srx msg",
        "tcp;ofi_rxm, RDM, srx tagged",
        "shm, RDM, atomic",
        "shm, RDM, fetch atomic",
        "tcp;ofi_rxm, RDM, atomic",
        "tcp;ofi_rxm, RDM, fetch atomic",
    })
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void noAllocationPerMessage(String prov, EndpointType type, String mode) {
        String only = System.getProperty("jfabric.alloc.providers");
        Assumptions.assumeTrue(only == null || java.util.Arrays.asList(only.split(",")).contains(prov),
                () -> "not run: -Djfabric.alloc.providers=" + only + " leaves " + prov + " out");
        boolean tagged = mode.endsWith("tagged");
        boolean sharedRx = mode.startsWith("srx");
        boolean atomic = mode.endsWith("atomic");
        long caps = atomic ? Caps.ATOMIC | Caps.MSG : tagged ? Caps.TAGGED : Caps.MSG;
        ThreadAllocations threads = new ThreadAllocations();
        FabricInfo info = MessagePair.find(prov, type, caps, sharedRx);
        Assumptions.assumeTrue(info != null, () -> "not run: no " + prov + " " + type + " info with "
                + (atomic ? "FI_ATOMIC" : tagged ? "FI_TAGGED" : "FI_MSG") + (sharedRx ? " and rx_ctx_cnt FI_SHARED_CONTEXT" : "")
                + " (provider missing or without the capability)");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(110);
        try (MessagePair pair = new MessagePair(info, MessageStream.WINDOW * SIZE, sharedRx)) {
            Stream stream = atomic ? new AtomicStream(pair, mode.startsWith("fetch"))::run
                    : new MessageStream(pair, SIZE)::run;
            stream.run(WARMUP, deadline);

            Map<Long, Long> a0 = threads.snapshot();
            stream.run(SHORT, deadline);
            Map<Long, Long> a1 = threads.snapshot();
            stream.run(LONG, deadline);
            Map<Long, Long> a2 = threads.snapshot();

            long shortBytes = ThreadAllocations.delta(a0, a1);
            long longBytes = ThreadAllocations.delta(a1, a2);
            double perMessage = (double) (longBytes - shortBytes) / (LONG - SHORT);
            String report = String.format("%s %s %s: %d bytes over %d operations, %d bytes over %d operations "
                            + "-> %.4f bytes per operation (short run: %s; long run: %s)", prov, type, mode, shortBytes,
                    SHORT, longBytes, LONG, perMessage, threads.describe(a0, a1), threads.describe(a1, a2));
            System.out.println(report);
            assertTrue(longBytes - shortBytes <= FIXED_SLACK_BYTES, "the data path allocates per message: " + report
                    + ". Find the frames with: JFR (jdk.ObjectAllocationSample) on this test, see docs/performance.md");
        }
    }

    /** A message or atomic stream: {@code count} operations to completion before the deadline. */
    private interface Stream {
        void run(long count, long deadlineNanos);
    }
}
