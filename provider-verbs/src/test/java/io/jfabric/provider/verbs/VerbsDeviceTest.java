package io.jfabric.provider.verbs;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The full {@link VerbsScenario} over real RDMA devices. It needs two devices with IP addresses, which
 * only the Soft-RoCE VM provides (scripts/verbs-in-vm sets SOFTROCE_IP/SOFTROCE_IP2 there); on a
 * machine without RDMA it is reported as skipped for that reason.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class VerbsDeviceTest {
    @Test
    @EnabledIfEnvironmentVariable(named = "SOFTROCE_IP2", matches = ".+",
            disabledReason = "needs two RDMA devices: run scripts/verbs-in-vm (Soft-RoCE VM)")
    void fullScenarioBetweenTwoDevices() throws Exception {
        VerbsScenario s = new VerbsScenario(System.out::println);
        s.run(System.getenv("SOFTROCE_IP"), System.getenv("SOFTROCE_IP2"));
        assertTrue(s.failures().isEmpty(), "failed checks: " + s.failures());
    }
}
