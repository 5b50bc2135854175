package io.jfabric.provider.shm;

import io.jfabric.provider.shm.wire.RegionLayout;

import io.jfabric.util.ProviderParams;

/**
 * The shm provider's tunables, read from {@code FI_SHM_<NAME>} or {@code -Djfabric.shm.<name>}
 * (libfabric's name where it has one: FI_SHM_DISABLE_CMA).
 */
final class ShmParams {

    static final ProviderParams PARAMS = new ProviderParams("shm");

    static final ProviderParams.BoolParam DISABLE_CMA = PARAMS.bool("disable_cma", false,
            "Do not use cross-memory attach (process_vm_readv/writev) even where the kernel allows it; "
                    + "large messages are then pulled through pipelined bounce slots and RMA is unavailable");
    static final ProviderParams.LongParam RING_SIZE = PARAMS.size("ring_size", 1 << 20,
            "Bytes in each endpoint's receive ring (a power of two, 4 KiB to 256 MiB)");
    static final ProviderParams.LongParam INLINE_SIZE = PARAMS.size("inline_size", 1024,
            "Largest message carried inside the ring command itself");
    static final ProviderParams.LongParam BOUNCE_SLOT_SIZE = PARAMS.size("bounce_slot_size", 16384,
            "Size of each bounce slot (medium messages, multiple of 4 KiB); larger messages use CMA");
    static final ProviderParams.LongParam SPLIT_COPY_MIN = PARAMS.size("split_copy_min", 64 * 1024,
            "Smallest CMA message whose receiver asks the sender to write half of it while it reads the other "
                    + "half, two copies on two cores at once (0: never)");
    static final ProviderParams.IntParam BOUNCE_SLOTS = PARAMS.integer("bounce_slots", 64,
            "Bounce slots per endpoint");
    static final ProviderParams.IntParam UNEXPECTED = PARAMS.integer("unexpected_msgs", 256,
            "Unexpected messages buffered per endpoint before the receiver stops draining its ring "
                    + "(senders then see EAGAIN)");
    static final ProviderParams.IntParam LIVENESS_INTERVAL_MS = PARAMS.integer("liveness_interval_ms", 50,
            "Milliseconds between the scans that operations waiting on a peer make for peers gone without a word "
                    + "(a peer's process exit and its endpoint's close are heard at once; the scan finds the rest)");
    static final ProviderParams.StringParam DIRECTORY = PARAMS.string("dir", "/dev/shm",
            "Directory (a tmpfs) holding the endpoint regions");

    private ShmParams() {
    }

    static RegionLayout layout() {
        return new RegionLayout((int) RING_SIZE.get(), (int) BOUNCE_SLOT_SIZE.get(), BOUNCE_SLOTS.get());
    }
}
