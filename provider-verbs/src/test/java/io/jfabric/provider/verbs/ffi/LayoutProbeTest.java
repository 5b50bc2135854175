package io.jfabric.provider.verbs.ffi;

import io.jfabric.provider.verbs.ffi.generated.ibv_async_event;
import io.jfabric.provider.verbs.ffi.generated.ibv_comp_channel;
import io.jfabric.provider.verbs.ffi.generated.ibv_context;
import io.jfabric.provider.verbs.ffi.generated.ibv_context_ops;
import io.jfabric.provider.verbs.ffi.generated.ibv_cq;
import io.jfabric.provider.verbs.ffi.generated.ibv_device_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_mr;
import io.jfabric.provider.verbs.ffi.generated.ibv_pd;
import io.jfabric.provider.verbs.ffi.generated.ibv_port_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp_cap;
import io.jfabric.provider.verbs.ffi.generated.ibv_qp_init_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_recv_wr;
import io.jfabric.provider.verbs.ffi.generated.ibv_send_wr;
import io.jfabric.provider.verbs.ffi.generated.ibv_sge;
import io.jfabric.provider.verbs.ffi.generated.ibv_srq;
import io.jfabric.provider.verbs.ffi.generated.ibv_srq_init_attr;
import io.jfabric.provider.verbs.ffi.generated.ibv_wc;
import io.jfabric.provider.verbs.ffi.generated.pollfd;
import io.jfabric.provider.verbs.ffi.generated.rdma_cm_event;
import io.jfabric.provider.verbs.ffi.generated.rdma_cm_id;
import io.jfabric.provider.verbs.ffi.generated.rdma_conn_param;
import io.jfabric.provider.verbs.ffi.generated.rdma_event_channel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Compiles layout-probe.c with gcc against the installed rdma-core headers and checks every struct
 * size, field offset and constant the bindings use against it, in both directions: everything the
 * probe prints matches the Java side, and everything the Java side declares is printed by the probe.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LayoutProbeTest {
    /** Every struct class of the bindings (the generated classes in src/generated/java). */
    static final List<Class<?>> STRUCTS = List.of(ibv_context_ops.class, ibv_context.class, ibv_device_attr.class,
            ibv_port_attr.class, ibv_pd.class, ibv_mr.class, ibv_comp_channel.class, ibv_cq.class, ibv_qp.class,
            ibv_qp_cap.class, ibv_qp_attr.class, ibv_qp_init_attr.class, ibv_srq.class,
            ibv_srq_init_attr.class, ibv_sge.class, ibv_send_wr.class, ibv_recv_wr.class,
            ibv_wc.class, ibv_async_event.class, rdma_event_channel.class, rdma_cm_id.class,
            rdma_conn_param.class, rdma_cm_event.class, pollfd.class);
    static final List<Class<?>> HEADERS = List.of(verbs_h.class, rdma_cma_h.class, poll_h.class);

    static Map<String, Long> probe;

    @BeforeAll
    static void runProbe(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path src = dir.resolve("layout-probe.c");
        try (InputStream in = LayoutProbeTest.class.getResourceAsStream("layout-probe.c")) {
            Files.write(src, in.readAllBytes());
        }
        Path exe = dir.resolve("layout-probe");
        run(dir, "gcc", "-Wall", "-Werror", "-o", exe.toString(), src.toString());
        String out = run(dir, exe.toString());
        probe = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            if (!line.isBlank()) {
                int sp = line.lastIndexOf(' ');
                probe.put(line.substring(0, sp), Long.parseLong(line.substring(sp + 1)));
            }
        }
        assertTrue(probe.size() > 150, "probe printed too little: " + out);
    }

    private static String run(Path dir, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        assertEquals(0, p.exitValue(), () -> String.join(" ", cmd) + " failed (are gcc, libibverbs-dev and "
                + "librdmacm-dev installed?):\n" + out);
        return out;
    }

    private static Class<?> struct(String name) throws ClassNotFoundException {
        return Class.forName(ibv_sge.class.getPackageName() + "." + name);
    }

    private static GroupLayout layoutOf(Class<?> c) throws ReflectiveOperationException {
        return (GroupLayout) c.getMethod("layout").invoke(null);
    }

    @Test
    void everyProbedSizeOffsetAndConstantMatchesTheBindings() throws Exception {
        List<String> mismatches = new ArrayList<>();
        for (Map.Entry<String, Long> e : probe.entrySet()) {
            String key = e.getKey();
            long c = e.getValue();
            long java;
            if (key.startsWith("sizeof(")) {
                java = (long) struct(key.substring(7, key.length() - 1)).getMethod("sizeof").invoke(null);
            } else if (key.startsWith("offsetof(")) {
                String[] path = key.substring(9, key.length() - 1).split("\\.");
                MemoryLayout.PathElement[] elems = new MemoryLayout.PathElement[path.length - 1];
                for (int i = 1; i < path.length; i++) {
                    elems[i - 1] = MemoryLayout.PathElement.groupElement(path[i]);
                }
                java = layoutOf(struct(path[0])).byteOffset(elems);
            } else {
                java = constant(key);
            }
            if (java != c) {
                mismatches.add(key + ": C " + c + ", Java " + java);
            }
        }
        assertTrue(mismatches.isEmpty(), "layouts differ from the installed headers: " + mismatches);
    }

    private static long constant(String name) throws IllegalAccessException {
        for (Class<?> h : HEADERS) {
            try {
                Field f = h.getField(name);
                return ((Number) f.get(null)).longValue();
            } catch (NoSuchFieldException ignored) {
                // look in the next header class
            }
        }
        throw new AssertionError("constant " + name + " is in the probe but in no header class");
    }

    @Test
    void everyFieldAndConstantOfTheBindingsIsProbed() throws Exception {
        List<String> missing = new ArrayList<>();
        for (Class<?> c : STRUCTS) {
            String name = c.getSimpleName();
            GroupLayout l = layoutOf(c);
            assertEquals(name, l.name().orElseThrow());
            if (!probe.containsKey("sizeof(" + name + ")")) {
                missing.add("sizeof(" + name + ")");
            }
            collectFields(name, l, missing);
        }
        for (Class<?> h : HEADERS) {
            for (Field f : h.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class && !probe.containsKey(f.getName())) {
                    missing.add(h.getSimpleName() + "." + f.getName());
                }
            }
        }
        assertTrue(missing.isEmpty(), "bound but not checked by layout-probe.c: " + missing);
    }

    /** Adds every named leaf (and named nested struct) the probe does not print. */
    private static void collectFields(String prefix, GroupLayout group, List<String> missing) {
        for (MemoryLayout m : group.memberLayouts()) {
            if (m instanceof PaddingLayout || m.name().isEmpty()) {
                continue;
            }
            String path = prefix + "." + m.name().get();
            // a nested struct of another class is checked there; inline anonymous members recurse
            boolean inline = m instanceof StructLayout s && s.name().isPresent() && isInline(s);
            if (inline) {
                collectFields(path, (GroupLayout) m, missing);
            } else if (!probe.containsKey("offsetof(" + path + ")")) {
                missing.add("offsetof(" + path + ")");
            }
        }
    }

    /** False when {@code s} is another binding class's layout (renamed as a member), which is checked there. */
    private static boolean isInline(StructLayout s) {
        for (Class<?> c : STRUCTS) {
            try {
                if (layoutOf(c).withoutName().equals(s.withoutName())) {
                    return false;
                }
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        }
        return true;
    }

    /** The generated source root holds exactly the struct classes checked here, each marked as generated. */
    @Test
    void everyGeneratedClassIsMarkedAndChecked() throws IOException {
        Path dir = Path.of("src/generated/java", ibv_sge.class.getPackageName().split("\\."));
        List<String> files;
        try (var s = Files.list(dir)) {
            files = s.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".java")).sorted().toList();
        }
        List<String> expected = STRUCTS.stream().map(c -> c.getSimpleName() + ".java").sorted().toList();
        assertEquals(expected, files, "the generated classes and the ones this test checks differ");
        for (String f : files) {
            String first = Files.readAllLines(dir.resolve(f)).getFirst();
            assertTrue(first.startsWith("// Generated by scripts/regenerate-bindings (") && first.endsWith("do not edit."),
                    f + " does not start with the generated marker: " + first);
        }
    }

    @Test
    void theOpsTableOffsetsAreTheMeasuredOnes() {
        // the data path depends on these four; keep them visible in the test report
        assertEquals(8, ibv_context.ops$offset());
        assertEquals(88, ibv_context_ops.poll_cq$offset());
        assertEquals(200, ibv_context_ops.post_send$offset());
        assertEquals(208, ibv_context_ops.post_recv$offset());
        assertEquals(48, ibv_wc.sizeof());
        assertEquals(128, ibv_send_wr.sizeof());
        assertEquals(16, ibv_sge.sizeof());
    }
}
