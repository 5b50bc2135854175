package io.jfabric.conformance;

import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.Hints;
import io.jfabric.Caps;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The README's example is the first code a newcomer runs, so it is compiled and run here, as written,
 * once per RDM provider that discovery offers (each selected with -Djfabric.provider).
 */
class ReadmeExampleTest {

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void readmeExampleRunsOnEveryRdmProvider() throws Exception {
        Path source = extractExample();
        Set<String> providers = new LinkedHashSet<>();
        for (FabricInfo info : Fabrics.getInfo(Hints.create().caps(Caps.MSG).epType(EndpointType.RDM).build())) {
            providers.add(info.providerName());
        }
        assertFalse(providers.isEmpty(), "discovery offers no RDM provider to run the README example on");
        List<String> failures = new ArrayList<>();
        for (String provider : providers) {
            String output = run(source, provider);
            if (!output.contains("received: hello, fabric")) {
                failures.add(provider + ":\n" + output);
            }
        }
        assertTrue(failures.isEmpty(), "README example failed on:\n" + String.join("\n", failures));
    }

    private static Path extractExample() throws IOException {
        Path readme = Path.of(System.getProperty("user.dir")).getParent().resolve("README.md");
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int start = text.indexOf("```java\n");
        assertTrue(start >= 0, "README.md has no java example");
        int end = text.indexOf("```", start + 8);
        String code = text.substring(start + 8, end);
        assertTrue(code.contains("public class Hello"), "README example is expected to be class Hello");
        Path dir = Files.createTempDirectory("jfabric-readme");
        Path file = dir.resolve("Hello.java");
        Files.writeString(file, code, StandardCharsets.UTF_8);
        return file;
    }

    /** Runs the example with the JDK's source launcher, on the test class path, and returns its output. */
    private static String run(Path source, String provider) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED",
                "-Djfabric.provider=" + provider,
                "-cp", System.getProperty("java.class.path"), source.toString());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        boolean done = p.waitFor(120, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!done) {
            p.destroyForcibly();
            return "timed out after 120 s\n" + out;
        }
        assertEquals(0, p.exitValue(), () -> "README example exited " + p.exitValue() + " on " + provider + ":\n" + out);
        return out;
    }
}
