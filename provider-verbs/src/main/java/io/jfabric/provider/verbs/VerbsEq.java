package io.jfabric.provider.verbs;

import io.jfabric.EqAttr;
import io.jfabric.util.UtilEventQueue;

import java.lang.foreign.MemorySegment;

/**
 * Mirrors libfabric's verbs EQ: provider-util's EQ plus an rdma_cm event channel ({@link VerbsCmChannel}),
 * whose reading is the EQ's progress. The endpoints and passive endpoints that own the channel's cm_ids post
 * CONNREQ / CONNECTED / SHUTDOWN or error entries here.
 */
final class VerbsEq extends UtilEventQueue {
    private final VerbsFabric fabric;
    private final VerbsCmChannel channel;

    VerbsEq(VerbsFabric fabric, EqAttr attr) {
        this(fabric, attr == null ? EqAttr.defaults() : attr, new VerbsCmChannel());
    }

    private VerbsEq(VerbsFabric fabric, EqAttr attr, VerbsCmChannel channel) {
        super(attr, channel);
        this.fabric = fabric;
        this.channel = channel;
        fabric.acquire();
    }

    MemorySegment channel() {
        return channel.handle();
    }

    /** Routes the events of {@code id} to {@code l}; the EQ cannot close while ids are registered. */
    void register(MemorySegment id, VerbsCmChannel.Listener l) {
        acquire();
        channel.register(id, l);
    }

    void unregister(MemorySegment id) {
        if (channel.unregister(id)) {
            release();
        }
    }

    @Override
    protected void doClose() {
        super.doClose();
        channel.close();
        fabric.release();
    }
}
