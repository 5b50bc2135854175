package io.jfabric.provider.libfabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfabric.Fabrics;
import io.jfabric.Hints;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Without libfabric.so the libfabric provider is simply absent: no infos, no exception, and a reason that says
 * what to install. Checked in a child JVM pointed at a library path that does not exist (a JVM loads
 * the library once, so this cannot run in the test JVM).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MissingLibraryTest {

    /** Run in the child JVM: prints the reason and the number of infos. */
    public static void main(String[] args) {
        LibfabricProvider p = new LibfabricProvider();
        System.out.println("reason=" + p.unavailableReason());
        System.out.println("infos=" + p.getInfo(Fabrics.API_VERSION, null, null, 0,
                Hints.create().provider("libfabric").build()).size());
        try {
            p.openFabric(new io.jfabric.FabricInfo());
            System.out.println("open=returned");
        } catch (io.jfabric.FabricException e) {
            System.out.println("open=" + e.errno());
        }
    }

    @Test
    void noLibraryMeansNoInfosAndAReason() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(List.of(java, "--enable-native-access=ALL-UNNAMED",
                "-Djfabric.libfabric.path=/nonexistent/libfabric.so.1",
                "-cp", System.getProperty("java.class.path"), MissingLibraryTest.class.getName()))
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("reason=cannot load /nonexistent/libfabric.so.1"), out);
        assertTrue(out.contains("install libfabric1"), out);
        assertTrue(out.contains("infos=0"), out);
        assertTrue(out.contains("open=61"), "openFabric refuses with ENODATA: " + out);
    }
}
