package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** FI_PROVIDER as handed to native libfabric, and its effect in a child JVM with the variable set. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProviderFilterTest {

    @Test
    void bridgeNamesLoseTheirPrefixAndJavaNamesAreDropped() {
        assertEquals("shm", ProviderFilter.translate("libfabric:shm"));
        assertEquals("tcp;ofi_rxm,shm", ProviderFilter.translate("tcp, libfabric:tcp;ofi_rxm,libfabric:shm"));
        assertEquals("^udp;ofi_rxd", ProviderFilter.translate("^libfabric:udp;ofi_rxd,shm"));
        assertNull(ProviderFilter.translate("tcp,shm"), "a Java-only list does not filter native providers");
        assertNull(ProviderFilter.translate("libfabric,tcp"));
        assertNull(ProviderFilter.translate(""));
        assertNull(ProviderFilter.translate(null));
    }

    /** Child JVM entry: prints the distinct native provider names the libfabric provider offers. */
    public static void main(String[] args) {
        System.out.println("names=" + new LibfabricProvider().getInfo(0, null, null, 0, null).stream()
                .map(io.jfabric.FabricInfo::providerName).distinct().sorted().toList());
    }

    @Test
    void fiProviderWithABridgeNameSelectsThatNativeProvider() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), ProviderFilterTest.class.getName()))
                .redirectErrorStream(true);
        pb.environment().put("FI_PROVIDER", "libfabric:shm,tcp");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("names=[libfabric:shm]"), out);
    }
}
