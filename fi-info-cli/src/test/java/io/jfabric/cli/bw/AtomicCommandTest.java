package io.jfabric.cli.bw;

import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricException;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code jfabric atomic -c} end to end, Java to Java: a target and an initiator in two threads of this JVM over
 * tcp;ofi_rxm (loopback) and shm, each test's target element and fetched element checked against
 * {@link AtomicExpectation} (a wrong one exits 1; its verdicts are tested in AtomicExpectationTest). The same on
 * libfabric's own tcp;ofi_rxm through the libfabric provider, where libfabric is installed.
 */
@Timeout(120)
class AtomicCommandTest {
    @ParameterizedTest(name = "{0} -o {1} -z {2}")
    @CsvSource({
        "tcp;ofi_rxm, all, uint64",
        "tcp;ofi_rxm, sum, all",
        "tcp;ofi_rxm, cswap_ge, all",
        "shm, all, double",
        "shm, prod, all",
        "shm, mswap, all",
        "libfabric:tcp;ofi_rxm, all, uint64",
        "libfabric:tcp;ofi_rxm, sum, all",
    })
    void checkedRunSucceeds(String provider, String op, String datatype) throws Exception {
        if (provider.startsWith("libfabric:")) {
            Assumptions.assumeTrue(offersAtomics(provider), provider + " is not offered here (libfabric.so.1 1.17"
                    + " not installed, or its tcp;ofi_rxm without FI_ATOMIC)");
        }
        int[] rc = BwCommandTest.runPair(List.of("atomic", "-p", provider, "-e", "rdm", "-o", op, "-z", datatype, "-I", "5",
                "-w", "1", "-W", "4", "-c", "--no-progress"));
        assertEquals(0, rc[0], "target exit code");
        assertEquals(0, rc[1], "initiator exit code (1: a check failed)");
    }

    private static boolean offersAtomics(String provider) {
        try {
            return !Fabrics.getInfo(Hints.create().provider(provider).epType(EndpointType.RDM).caps(Caps.ATOMIC)
                    .build()).isEmpty();
        } catch (FabricException e) {
            return false;
        }
    }
}
