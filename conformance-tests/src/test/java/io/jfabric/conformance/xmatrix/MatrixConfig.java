package io.jfabric.conformance.xmatrix;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One configuration of the matrix: a transport, its Java and native provider names, and for rxm the
 * FI_OFI_RXM_ENABLE_DYN_RBUF setting both sides run with. The dynamic-receive-buffer run covers only the
 * operations that setting changes (messages and tagged messages).
 */
record MatrixConfig(String transport, boolean rdm, boolean dynRbuf, Set<MatrixOp> ops) {
    static final long EAGER_LIMIT = 16384; // FI_OFI_RXM_BUFFER_SIZE's default in libfabric 1.17 and jfabric
    static final long SAR_LIMIT = 131072;  // FI_OFI_RXM_SAR_LIMIT's default
    static final long LARGEST = 4L << 20;

    /**
     * The configurations; {@code -Djfabric.xmatrix.ops=send,tagged} narrows every one to those operations
     * (to chase one failure), and {@code -Djfabric.xmatrix.transport=tcp} to one transport.
     */
    static List<MatrixConfig> all() {
        List<MatrixConfig> all = every();
        String ops = System.getProperty("jfabric.xmatrix.ops", "").trim();
        String transport = System.getProperty("jfabric.xmatrix.transport", "").trim();
        if (ops.isEmpty() && transport.isEmpty()) {
            return all;
        }
        Set<MatrixOp> only = EnumSet.noneOf(MatrixOp.class);
        for (String o : ops.split(",")) {
            if (!o.isBlank()) {
                only.add(MatrixOp.valueOf(o.trim().toUpperCase(java.util.Locale.ROOT)));
            }
        }
        return all.stream().filter(c -> transport.isEmpty() || c.transport.equals(transport))
                .map(c -> new MatrixConfig(c.transport, c.rdm, c.dynRbuf, narrow(c.ops, only)))
                .filter(c -> !c.ops.isEmpty()).toList();
    }

    /** True when the matrix runs in full (only then is docs/conformance.md rewritten). */
    static boolean complete(int configsRun) {
        return configsRun == every().size() && all().equals(every());
    }

    private static Set<MatrixOp> narrow(Set<MatrixOp> ops, Set<MatrixOp> only) {
        if (only.isEmpty()) {
            return ops;
        }
        Set<MatrixOp> s = EnumSet.copyOf(only);
        s.retainAll(ops);
        return s;
    }

    private static List<MatrixConfig> every() {
        Set<MatrixOp> every = EnumSet.allOf(MatrixOp.class);
        Set<MatrixOp> messages = EnumSet.of(MatrixOp.SEND, MatrixOp.SENDDATA, MatrixOp.TAGGED, MatrixOp.PEEK_CLAIM);
        return List.of(new MatrixConfig("tcp", false, false, every),
                new MatrixConfig("tcp;ofi_rxm", true, false, every),
                new MatrixConfig("tcp;ofi_rxm", true, true, messages));
    }

    /**
     * The provider on the "Java" side: {@code -Djfabric.xmatrix.javaSide=native} puts libfabric's there too,
     * which turns a failing cell into a reproducer that runs libfabric against itself.
     */
    String javaProvider() {
        return "native".equals(System.getProperty("jfabric.xmatrix.javaSide")) ? "libfabric:" + transport : transport;
    }

    /** The provider on the "C" side: {@code -Djfabric.xmatrix.nativeSide=java} runs Java against itself. */
    String nativeProvider() {
        return "java".equals(System.getProperty("jfabric.xmatrix.nativeSide")) ? transport : "libfabric:" + transport;
    }

    String label() {
        return transport + (rdm ? (dynRbuf ? " (FI_EP_RDM, DYN_RBUF=1)" : " (FI_EP_RDM, DYN_RBUF=0)") : " (FI_EP_MSG)");
    }

    @Override
    public String toString() {
        return label();
    }
}
