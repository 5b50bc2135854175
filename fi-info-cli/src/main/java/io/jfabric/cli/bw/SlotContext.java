package io.jfabric.cli.bw;

/** The context of one buffer slot's operation: which slot, and when it was posted (for the latency histogram). */
final class SlotContext {
    final int slot;
    long postedAt;

    SlotContext(int slot) {
        this.slot = slot;
    }

    static SlotContext[] array(int n) {
        SlotContext[] a = new SlotContext[n];
        for (int i = 0; i < n; i++) {
            a[i] = new SlotContext(i);
        }
        return a;
    }
}
