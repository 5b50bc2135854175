package io.jfabric.conformance.xmatrix;

import io.jfabric.EndpointType;
import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The cross-implementation matrix (issue 20): every operation of jfabric's Java tcp and tcp;ofi_rxm against
 * libfabric's own C provider of the same name (through the bridge), each in its own JVM, with the Java side
 * listening and then connecting, and within each the Java side initiating and then being the target; at the
 * sizes where the protocols change (0, 1, inject_size and the rxm eager and SAR limits, each +-1, 4 MiB), the
 * data checked at the receiver. A cell that fails and is not a listed {@link MatrixDeviations deviation} fails
 * the test. The results go to target/xmatrix/matrix.md, and into docs/conformance.md between its xmatrix
 * markers when {@code -Djfabric.xmatrix.doc=<path of docs/conformance.md>} is given.
 */
class CrossImplementationMatrixTest {
    /** Per step; a 4 MiB rendezvous on a loaded 2-core machine stays far below it. */
    private static final long STEP_MS = 10_000;
    static final Map<MatrixConfig, List<MatrixReport.Cell>> RESULTS = new ConcurrentHashMap<>();

    static List<MatrixConfig> configs() {
        return MatrixConfig.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyCellPassesOrIsAListedDeviation(MatrixConfig cfg) throws Exception {
        assumeTrue(nativeOffers(cfg), "libfabric's native " + cfg.transport() + " is not available through the"
                + " bridge (libfabric 1.17 not installed: bash scripts/install-native-deps.sh)");
        List<MatrixReport.Cell> cells = new ArrayList<>();
        List<String> unexpected = new ArrayList<>();
        long seed = 1;
        for (boolean javaListens : new boolean[] {true, false}) {
            String role = javaListens ? "Java listens" : "C listens";
            MatrixPair pair = MatrixPair.open(cfg, javaListens);
            try {
                for (MatrixOp op : cfg.ops()) {
                    for (long size : sizes(pair)) {
                        for (boolean javaInitiates : new boolean[] {true, false}) {
                            MatrixPair.Peer init = javaInitiates ? pair.java : pair.c;
                            MatrixPair.Peer target = javaInitiates ? pair.c : pair.java;
                            if (!applies(op, size, init, target)) {
                                continue;
                            }
                            String failure = pair.run(op, size, seed++, javaInitiates, STEP_MS);
                            MatrixDeviations.Deviation listed = MatrixDeviations.find(cfg, op, size, javaInitiates);
                            cells.add(new MatrixReport.Cell(role, javaInitiates, op, size, failure, listed));
                            if (failure != null) {
                                if (listed == null) {
                                    unexpected.add(cfg.label() + ", " + role + ", " + (javaInitiates ? "Java" : "C")
                                            + " initiates " + op.id() + " of " + size + " B: " + failure);
                                }
                                pair.close(); // a failed cell may leave operations posted: start clean
                                pair = MatrixPair.open(cfg, javaListens);
                            }
                        }
                    }
                }
            } finally {
                pair.close();
            }
        }
        RESULTS.put(cfg, cells);
        assertTrue(unexpected.isEmpty(), unexpected.size() + " cells failed that are not listed deviations:\n"
                + String.join("\n", unexpected));
    }

    @AfterAll
    static void writeReport() throws IOException {
        MatrixReport.write(RESULTS);
    }

    /** 0, 1, each side's inject_size +-1, the rxm eager and SAR limits +-1, and 4 MiB. */
    static List<Long> sizes(MatrixPair pair) {
        TreeSet<Long> s = new TreeSet<>(List.of(0L, 1L, MatrixConfig.LARGEST));
        for (long b : new long[] {pair.java.injectSize, pair.c.injectSize, MatrixConfig.EAGER_LIMIT,
                MatrixConfig.SAR_LIMIT}) {
            s.addAll(List.of(b - 1, b, b + 1));
        }
        s.removeIf(v -> v < 0);
        return List.copyOf(s);
    }

    private static boolean applies(MatrixOp op, long size, MatrixPair.Peer init, MatrixPair.Peer target) {
        if ((init.caps & op.cap) == 0 || (target.caps & op.cap) == 0) {
            return false;
        }
        if (op.inject && size > init.injectSize) {
            return false;
        }
        if (op == MatrixOp.MULTI_RECV) {
            return size > 0 && size <= 2 * MatrixConfig.SAR_LIMIT;
        }
        // a burst of 64-byte writes and the atomic set (one element each) are run once
        return op != MatrixOp.WRITEDATA_BURST && op != MatrixOp.ATOMIC || size == 1;
    }

    private static boolean nativeOffers(MatrixConfig cfg) {
        FabricInfo h = FabricInfo.hints();
        h.epAttr.type = cfg.rdm() ? EndpointType.RDM : EndpointType.MSG;
        h.fabricAttr.provName = "libfabric:" + cfg.transport();
        try {
            return !Fabrics.getInfo(h).isEmpty();
        } catch (FabricException e) {
            return false;
        }
    }
}
