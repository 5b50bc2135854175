package io.jfabric.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CLI on the module path with native access granted to tcp's module only: tcp works, and shm, verbs and the
 * libfabric bridge report themselves unavailable with the flag to add, instead of failing with
 * IllegalCallerException; a provider the filter excludes makes no native call at all (the JVM, which only warns by
 * default, would print a warning naming its module).
 */
@Timeout(120)
class NativeAccessOnTheModulePathTest {
    private static final String TCP_ONLY = "--enable-native-access=io.jfabric.provider.tcp";

    /** jfabric's modules (the reactor's target/classes or installed jars) and the third-party modules they need. */
    private static String modulePath() {
        List<String> path = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            String n = p.getFileName().toString();
            boolean moduleDir = Files.isRegularFile(p.resolve("module-info.class"));
            boolean moduleJar = n.endsWith(".jar") && (n.startsWith("fabric-api") || n.startsWith("provider-")
                    || n.startsWith("fi-info-cli") || n.startsWith("picocli") || n.startsWith("HdrHistogram")
                    || n.startsWith("agrona"));
            if (moduleDir || moduleJar) {
                path.add(entry);
            }
        }
        return String.join(File.pathSeparator, path);
    }

    private record Run(int rc, String out) {
    }

    private static Run cli(Map<String, String> env, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (String a : args) {
            if (a.equals("--")) {
                cmd.addAll(List.of("-p", modulePath(), "-m", "io.jfabric.cli/io.jfabric.cli.Main"));
            } else {
                cmd.add(a);
            }
        }
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("FI_PROVIDER");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd));
        return new Run(p.exitValue(), out);
    }

    private static String denied(String module) {
        return "unavailable: native access is not enabled for module " + module + "; add --enable-native-access="
                + module;
    }

    @Test
    void deniedProvidersSayWhichFlagToAddAndTcpStaysAvailable() throws Exception {
        Run r = cli(Map.of(), "--illegal-native-access=deny", TCP_ONLY, "--", "info", "-l", "--verbose");
        assertEquals(0, r.rc(), r.out());
        assertTrue(Pattern.compile("(?m)^tcp:\\n(    .*\\n)*?    status: available$").matcher(r.out()).find(), r.out());
        assertTrue(Pattern.compile("(?m)^shm:\\n(    .*\\n)*?    status: " + Pattern.quote(denied("io.jfabric.provider.shm")))
                .matcher(r.out()).find(), r.out());
        assertTrue(r.out().contains(denied("io.jfabric.provider.libfabric")), r.out());
        assertTrue(r.out().contains(denied("io.jfabric.provider.verbs")), r.out());
        assertFalse(r.out().contains("IllegalCallerException"), r.out());
    }

    @Test
    void tcpGivesItsInfosAndShmExplainsItself() throws Exception {
        Run tcp = cli(Map.of(), "--illegal-native-access=deny", TCP_ONLY, "--", "info", "-p", "tcp");
        assertEquals(0, tcp.rc(), tcp.out());
        assertTrue(tcp.out().contains("provider: tcp\n"), tcp.out());
        Run shm = cli(Map.of(), "--illegal-native-access=deny", TCP_ONLY, "--", "info", "-p", "shm");
        assertNotEquals(0, shm.rc(), shm.out());
        assertTrue(shm.out().contains("shm: " + denied("io.jfabric.provider.shm")), shm.out());
    }

    @Test
    void providersTheFilterExcludesMakeNoNativeCall() throws Exception {
        // the JVM's default mode lets every module call native code but warns once for each one that does
        Run r = cli(Map.of("FI_PROVIDER", "tcp"), TCP_ONLY, "--", "info", "-p", "tcp");
        assertEquals(0, r.rc(), r.out());
        assertTrue(r.out().contains("provider: tcp\n"), r.out());
        assertFalse(r.out().contains("WARNING"), r.out());
    }
}
