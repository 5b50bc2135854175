package io.jfabric.conformance.xmatrix;

import java.util.List;
import java.util.function.LongPredicate;

/**
 * The cells of the matrix known to fail, each with the reason and a command that shows it (a libfabric
 * deviation, or a known fault of jfabric's bridge that the C program shows is not libfabric's). A listed cell
 * may fail without failing the test; the report marks it.
 */
final class MatrixDeviations {
    /**
     * @param transport the config label prefix it applies to
     * @param javaInitiates true/false for one direction, null for both
     */
    record Deviation(int number, String transport, MatrixOp op, Boolean javaInitiates, LongPredicate sizes,
                     String reason, String reproducer) {
    }

    static final List<Deviation> LIST = List.of(
            new Deviation(1, "tcp;ofi_rxm (FI_EP_RDM, DYN_RBUF=0)", MatrixOp.PEEK_CLAIM, true,
                    s -> s > MatrixConfig.EAGER_LIMIT && s <= MatrixConfig.SAR_LIMIT,
                    "Open, jfabric's bridge (provider-libfabric), not libfabric: a C tcp;ofi_rxm target reached"
                            + " through the bridge cannot claim a message that came by rxm's SAR protocol (eager limit <"
                            + " size <= SAR limit) after FI_PEEK|FI_CLAIM found it: the FI_CLAIM receive completes"
                            + " with FI_ETRUNC, or (one byte over the eager limit) never. Not yet traced. Ruled out: the"
                            + " claim's fi_context (the bridge now passes the peek's own, ContextSlots holds it), a"
                            + " receive buffer 64 B longer than the message, a directed claim address, the matrix's caps"
                            + " (MSG|RMA|TAGGED|MULTI_RECV), progress between the peek and the claim: the C program passes"
                            + " with each. The same peer in"
                            + " plain C passes (provider-libfabric/src/test/c/peek_claim_sar.c); the cell fails the"
                            + " same way with the bridge on both sides:",
                    "mvn -B -q test -pl conformance-tests -am -Dsurefire.failIfNoSpecifiedTests=false"
                            + " -Dtest='io.jfabric.conformance.xmatrix.CrossImplementationMatrixTest'"
                            + " -Djfabric.xmatrix.javaSide=native -Djfabric.xmatrix.ops=peek_claim"
                            + " -Djfabric.xmatrix.transport='tcp;ofi_rxm'"));

    private MatrixDeviations() {
    }

    static Deviation find(MatrixConfig cfg, MatrixOp op, long size, boolean javaInitiates) {
        for (Deviation d : LIST) {
            if (cfg.label().startsWith(d.transport()) && d.op() == op
                    && (d.javaInitiates() == null || d.javaInitiates() == javaInitiates) && d.sizes().test(size)) {
                return d;
            }
        }
        return null;
    }
}
