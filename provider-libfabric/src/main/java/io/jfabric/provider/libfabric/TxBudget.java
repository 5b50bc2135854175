package io.jfabric.provider.libfabric;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * How many reported transmits one endpoint has outstanding, kept for a native provider that does not refuse a
 * transmit past its tx_size itself. libfabric 1.17's rxd (udp;ofi_rxd) answers fi_send and fi_tsend with 0 when
 * no tx entry is left and drops the send: it is never transmitted and never completes
 * (src/test/c/thread_safe_posters.c; rxd_ep_generic_sendmsg keeps ret 0). Such an endpoint takes a unit of its
 * budget with each transmit's context slot and gives it back when the slot is freed (completion, error completion
 * or refused post), and answers -FI_EAGAIN, as fi_msg(3) asks, when the budget is spent. Transmits that report
 * nothing (FI_SELECTIVE_COMPLETION without FI_COMPLETION, fi_inject) hold no slot and cannot be counted: the
 * gap is in docs/differences.md.
 */
final class TxBudget {
    private final int limit;
    private final AtomicInteger outstanding = new AtomicInteger();

    TxBudget(long txSize) {
        this.limit = (int) Math.min(Integer.MAX_VALUE, Math.max(1, txSize));
    }

    /** The budget for an endpoint of {@code nativeName} with {@code txSize}, or null where the provider counts. */
    static TxBudget forProvider(String nativeName, long txSize) {
        return nativeName != null && nativeName.endsWith("ofi_rxd") ? new TxBudget(txSize) : null;
    }

    /** Takes one unit; false when {@code limit} transmits are outstanding. */
    boolean take() {
        for (;;) {
            int n = outstanding.get();
            if (n >= limit) {
                return false;
            }
            if (outstanding.compareAndSet(n, n + 1)) {
                return true;
            }
        }
    }

    void give() {
        outstanding.decrementAndGet();
    }
}
