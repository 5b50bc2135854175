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
 * Messages of 64 KiB take the large-message protocols (shm's pull by process_vm_readv, rxm's rendezvous, tcp's
 * segmented stream), over 100,000 extra messages each, where the fixed amount still comes to under a byte per
 * message. A provider that is not on the class path, or lacks the capability, is reported "not run".
 */
class AllocationTest {
    static final long SMALL = 64;
    static final long WARMUP = 200_000;
    static final long SHORT = 100_000;
    static final long LONG = SHORT + 1_000_000;
    /** Above every provider's eager or inline size (16 KiB), so the large-message path runs. */
    static final long LARGE = 64 * 1024;
    /** Large messages move 4,096 times the bytes: a tenth of the counts, so a case takes seconds. */
    static final long LARGE_DIVISOR = 10;
    /**
     * Cases that allocate per message today, each with why; they report "not run" with the reason unless
     * {@code -Djfabric.alloc.known=run} asks to see them fail (docs/performance.md, "Zero allocation on the data
     * path").
     */
    static final Map<String, String> KNOWN = Map.of(
            "tcp;ofi_rxm 65536", "rxm registers the sender's buffer with the core domain for each rendezvous "
                    + "message and closes the registration when the receiver has read it: a region object and "
                    + "two copy-on-write MrMap tables per message, about 2,040 B (libfabric's rxm caches these "
                    + "registrations; jfabric's rxm has no registration cache yet)");
    /** A fixed total the long run may exceed the short one by (lazy one-time structures, JIT-triggered class init). */
    static final long FIXED_SLACK_BYTES = 16 * 1024;

    @ParameterizedTest(name = "{0} {1} {2} {3} B")
    @CsvSource({
        "tcp, MSG, msg, 64",
        "tcp, MSG, tagged, 64",
        "shm, RDM, msg, 64",
        "shm, RDM, tagged, 64",
        "tcp;ofi_rxm, RDM, msg, 64",
        "tcp;ofi_rxm, RDM, tagged, 64",
        "shm, RDM, srx msg, 64",
        "shm, RDM, srx tagged, 64",
        "tcp;ofi_rxm, RDM, srx msg, 64",
        "tcp;ofi_rxm, RDM, srx tagged, 64",
        "shm, RDM, atomic, 8",
        "shm, RDM, fetch atomic, 8",
        "tcp;ofi_rxm, RDM, atomic, 8",
        "tcp;ofi_rxm, RDM, fetch atomic, 8",
        "tcp, MSG, msg, 65536",
        "shm, RDM, msg, 65536",
        "shm, RDM, tagged, 65536",
        "tcp;ofi_rxm, RDM, msg, 65536",
        "tcp;ofi_rxm, RDM, tagged, 65536",
    })
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void noAllocationPerMessage(String prov, EndpointType type, String mode, long size) {
        String only = System.getProperty("jfabric.alloc.providers");
        Assumptions.assumeTrue(only == null || java.util.Arrays.asList(only.split(",")).contains(prov),
                () -> "not run: -Djfabric.alloc.providers=" + only + " leaves " + prov + " out");
        String known = KNOWN.get(prov + " " + size);
        Assumptions.assumeTrue(known == null || "run".equals(System.getProperty("jfabric.alloc.known")),
                () -> "not run: a known allocation per message: " + known);
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
        long divisor = size == LARGE ? LARGE_DIVISOR : 1;
        long shortRun = SHORT / divisor;
        long longRun = LONG / divisor;
        try (MessagePair pair = new MessagePair(info, MessageStream.WINDOW * Math.max(size, SMALL), sharedRx)) {
            Stream stream = atomic ? new AtomicStream(pair, mode.startsWith("fetch"))::run
                    : new MessageStream(pair, size)::run;
            stream.run(WARMUP / divisor, deadline);

            Map<Long, Long> a0 = threads.snapshot();
            stream.run(shortRun, deadline);
            Map<Long, Long> a1 = threads.snapshot();
            stream.run(longRun, deadline);
            Map<Long, Long> a2 = threads.snapshot();

            long shortBytes = ThreadAllocations.delta(a0, a1);
            long longBytes = ThreadAllocations.delta(a1, a2);
            double perMessage = (double) (longBytes - shortBytes) / (longRun - shortRun);
            String report = String.format("%s %s %s of %d B: %d bytes over %d operations, %d bytes over %d "
                            + "operations -> %.4f bytes per operation (short run: %s; long run: %s)", prov, type, mode,
                    size, shortBytes, shortRun, longBytes, longRun, perMessage, threads.describe(a0, a1),
                    threads.describe(a1, a2));
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
