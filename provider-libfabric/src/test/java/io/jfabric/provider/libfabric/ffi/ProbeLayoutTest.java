package io.jfabric.provider.libfabric.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SequenceLayout;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checks the hand-written jextract-form bindings against the installed libfabric headers: a C
 * probe, generated from the Java layouts and constants themselves, is compiled with gcc against
 * /usr/include/rdma and prints sizeof/offsetof of every struct and field and the value of every
 * constant. Any difference fails with the full list.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProbeLayoutTest {

    private static final Path ARGFILE = Path.of("..", "scripts", "jextract-libfabric.includes");
    private static final String[] HEADERS = {"rdma/fabric.h", "rdma/fi_domain.h", "rdma/fi_endpoint.h",
            "rdma/fi_cm.h", "rdma/fi_eq.h", "rdma/fi_tagged.h", "rdma/fi_rma.h", "rdma/fi_errno.h"};

    private static List<String> structs;
    private static List<String> functions;

    @BeforeAll
    static void readArgfile() throws IOException {
        assertTrue(Files.exists(ARGFILE), "the jextract argfile must sit at " + ARGFILE.toAbsolutePath());
        structs = new ArrayList<>();
        functions = new ArrayList<>();
        for (String line : Files.readAllLines(ARGFILE)) {
            if (line.startsWith("--include-struct ")) {
                structs.add(line.substring(17).trim());
            } else if (line.startsWith("--include-function ")) {
                functions.add(line.substring(19).trim());
            }
        }
        assertTrue(structs.size() >= 40, "argfile lists the structs");
    }

    @Test
    void layoutsAndConstantsMatchTheInstalledHeaders(@TempDir Path dir) throws Exception {
        Map<String, Long> expected = new LinkedHashMap<>();
        StringBuilder c = new StringBuilder("#include <stddef.h>\n#include <stdio.h>\n#include <sys/uio.h>\n");
        for (String h : HEADERS) {
            c.append("#include <").append(h).append(">\n");
        }
        c.append("int main(void) {\n");
        for (String s : structs) {
            GroupLayout layout = (GroupLayout) Class.forName("io.jfabric.provider.libfabric.ffi." + s)
                    .getMethod("layout").invoke(null);
            assertEquals(s, layout.name().orElseThrow(), "layout name of class " + s);
            probe(c, expected, "sizeof(struct " + s + ")", "sizeof " + s, layout.byteSize());
            long offset = 0;
            for (MemoryLayout m : layout.memberLayouts()) {
                if (m.name().isPresent()) {
                    String f = m.name().get();
                    probe(c, expected, "offsetof(struct " + s + ", " + f + ")", "offsetof " + s + "." + f, offset);
                    boolean flexible = m instanceof SequenceLayout q && q.elementCount() == 0;
                    if (!flexible) {
                        probe(c, expected, "sizeof(((struct " + s + " *) 0)->" + f + ")", "sizeof " + s + "." + f,
                                m.byteSize());
                    }
                }
                offset += m.byteSize();
            }
        }
        int constants = 0;
        for (Method m : Fabric_h.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getParameterCount() == 0 && m.getName().startsWith("FI_")
                    && (m.getReturnType() == int.class || m.getReturnType() == long.class)) {
                long v = ((Number) m.invoke(null)).longValue();
                boolean isInt = m.getReturnType() == int.class;
                // an int constant must be a 32-bit C value; unsigned ones (1U << 31) compare by bits
                probe(c, expected, "sizeof(" + m.getName() + ")", "constsize " + m.getName(), isInt ? 4 : 8);
                probe(c, expected, (isInt ? "(int) (" : "(long long) (") + m.getName() + ")",
                        "const " + m.getName(), v);
                constants++;
            }
        }
        assertTrue(constants > 300, "constants found by reflection: " + constants);
        c.append("    return 0;\n}\n");

        Map<String, Long> actual = compileAndRun(dir, c.toString());
        List<String> mismatches = new ArrayList<>();
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            Long a = actual.get(e.getKey());
            if (!e.getValue().equals(a)) {
                mismatches.add(e.getKey() + ": Java " + e.getValue() + ", C " + a);
            }
        }
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " binding(s) disagree with the installed libfabric headers "
                    + "(regenerate with scripts/jextract-libfabric.sh):\n  " + String.join("\n  ", mismatches));
        }
        assertEquals(expected.size(), actual.size(), "every probe line was printed");
    }

    @Test
    void everyBoundFunctionResolvesInLibfabric() throws Exception {
        assertTrue(Fabric_h.isAvailable(), "libfabric.so.1 must be installed here: " + Fabric_h.unavailableReason());
        for (String f : functions) {
            MemorySegment addr = (MemorySegment) Fabric_h.class.getMethod(f + "$address").invoke(null);
            assertTrue(addr.address() != 0, f + " resolves");
        }
    }

    private static void probe(StringBuilder c, Map<String, Long> expected, String cExpr, String key, long javaValue) {
        c.append("    printf(\"%s=%lld\\n\", \"").append(key).append("\", (long long) (").append(cExpr).append("));\n");
        expected.put(key, javaValue);
    }

    private static Map<String, Long> compileAndRun(Path dir, String source) throws Exception {
        Path src = dir.resolve("probe.c");
        Path exe = dir.resolve("probe");
        Files.writeString(src, source);
        run(List.of("gcc", "-Wall", "-Werror", "-o", exe.toString(), src.toString()), dir);
        String out = run(List.of(exe.toString()), dir);
        Map<String, Long> values = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            int eq = line.lastIndexOf('=');
            if (eq > 0) {
                values.put(line.substring(0, eq), Long.parseLong(line.substring(eq + 1)));
            }
        }
        return values;
    }

    private static String run(List<String> cmd, Path dir) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "timed out: " + cmd);
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), cmd + " failed:\n" + text);
        return text;
    }
}
