package io.jfabric.conformance.xmatrix;

import java.util.List;
import java.util.function.LongPredicate;

/**
 * The cells of the matrix known to fail, each with the reason and a command that shows it (a libfabric
 * deviation, shown by a C program without jfabric). A listed cell may fail without failing the test; the
 * report marks it.
 */
final class MatrixDeviations {
    /**
     * @param transport the config label prefix it applies to
     * @param nativeTarget true when it fails only where the target runs libfabric's native provider (whichever
     *                     side initiates, so also with {@code -Djfabric.xmatrix.javaSide=native}), false for both
     */
    record Deviation(int number, String transport, MatrixOp op, boolean nativeTarget, LongPredicate sizes,
                     String reason, String reproducer) {
    }

    static final List<Deviation> LIST = List.of(
            new Deviation(1, "tcp;ofi_rxm (FI_EP_RDM, DYN_RBUF=0)", MatrixOp.PEEK_CLAIM, true,
                    s -> s > MatrixConfig.EAGER_LIMIT && s <= MatrixConfig.SAR_LIMIT,
                    "libfabric 1.17's tcp;ofi_rxm as the target, with FI_OFI_RXM_ENABLE_DYN_RBUF=0: a tagged"
                            + " message sent by rxm's SAR protocol (eager limit < size <= SAR limit) that"
                            + " FI_PEEK|FI_CLAIM found cannot be claimed: fi_trecvmsg(FI_CLAIM) copies only its first"
                            + " segment (16384 B) and then never completes, or completes with FI_ETRUNC when some"
                            + " segments arrive after the claim. rxm's claim path (rxm_trecvmsg) hands the reserved"
                            + " first segment to rxm_handle_rx_buf and never collects the later segments already"
                            + " queued as unexpected messages (an ordinary fi_trecv does, rxm_handle_unexp_sar);"
                            + " fi_tagged(3): the FI_CLAIM receive gets the message the peek reserved. Whichever side"
                            + " sends; with DYN_RBUF=1 (libfabric's default) it passes. Without jfabric, in two processes"
                            + " `FI_OFI_RXM_ENABLE_DYN_RBUF=0 ./peek_claim_sar_2p 'tcp;ofi_rxm' 131072`"
                            + " (provider-libfabric/src/test/c/peek_claim_sar_2p.c, see the README there) and in one"
                            + " peek_claim_sar.c; the cell with libfabric on both sides:",
                    "mvn -B -q test -pl"
                            + " conformance-tests -am -Dsurefire.failIfNoSpecifiedTests=false"
                            + " -Dtest='io.jfabric.conformance.xmatrix.CrossImplementationMatrixTest'"
                            + " -Djfabric.xmatrix.javaSide=native -Djfabric.xmatrix.ops=peek_claim"
                            + " -Djfabric.xmatrix.transport='tcp;ofi_rxm'"));

    private MatrixDeviations() {
    }

    static Deviation find(MatrixConfig cfg, MatrixOp op, long size, boolean javaInitiates) {
        for (Deviation d : LIST) {
            String target = javaInitiates ? cfg.nativeProvider() : cfg.javaProvider();
            if (cfg.label().startsWith(d.transport()) && d.op() == op
                    && (!d.nativeTarget() || target.startsWith("libfabric:")) && d.sizes().test(size)) {
                return d;
            }
        }
        return null;
    }
}
