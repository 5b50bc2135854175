package io.jfabric.cli.bw;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code jfabric atomic -c} end to end, Java to Java: a target and an initiator in two threads of this JVM over
 * tcp;ofi_rxm (loopback) and shm, each test's target element and fetched element checked against
 * {@link AtomicExpectation} (a wrong one exits 1; its verdicts are tested in AtomicExpectationTest).
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
    })
    void checkedRunSucceeds(String provider, String op, String datatype) throws Exception {
        int[] rc = BwCommandTest.runPair(List.of("atomic", "-p", provider, "-e", "rdm", "-o", op, "-z", datatype, "-I", "5",
                "-w", "1", "-W", "4", "-c", "--no-progress"));
        assertEquals(0, rc[0], "target exit code");
        assertEquals(0, rc[1], "initiator exit code (1: a check failed)");
    }
}
