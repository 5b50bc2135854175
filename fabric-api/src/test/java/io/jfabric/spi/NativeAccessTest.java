package io.jfabric.spi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * NativeAccess in JVMs of each native-access mode: {@link #main} prints what it answers for the class path. Only a
 * JVM that denies native access gets a reason; the default mode, which only warns, keeps native calls working.
 */
@Timeout(60)
class NativeAccessTest {
    /** Prints the answer for this class's module (the unnamed one), or "allowed". */
    public static void main(String[] args) {
        String why = NativeAccess.deniedReason(NativeAccessTest.class.getModule(), () -> MemorySegment.NULL.reinterpret(0));
        System.out.println(why == null ? "allowed" : why);
    }

    private static String answerIn(String... jvmOptions) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of(jvmOptions));
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), NativeAccessTest.class.getName()));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", cmd));
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ":\n" + out);
        return out;
    }

    @Test
    void allowedInThisJvm() {
        // surefire runs the tests with --enable-native-access=ALL-UNNAMED
        assertNull(NativeAccess.deniedReason(getClass().getModule(), () -> MemorySegment.NULL.reinterpret(0)));
    }

    @Test
    void deniedSaysWhichFlagToAdd() throws Exception {
        assertEquals("native access is not enabled for the class path (unnamed module); "
                + "add --enable-native-access=ALL-UNNAMED", answerIn("--illegal-native-access=deny"));
    }

    @Test
    void enabledOrMerelyWarnedIsAllowed() throws Exception {
        assertEquals("allowed", answerIn("--illegal-native-access=deny", "--enable-native-access=ALL-UNNAMED"));
        assertEquals("allowed", answerIn());
    }
}
