package io.jfabric.provider.verbs.ffi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every function listed in scripts/jextract-verbs.args is exported by the installed libibverbs,
 * librdmacm or libc, and every one of them has a binding (the static inline four excepted, which are
 * not exported and go through the ops table).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SymbolPresenceTest {
    @Test
    void everyBoundFunctionIsExported() throws IOException {
        assertNull(NativeLibrary.loadProblem(NativeLibrary.IBVERBS));
        assertNull(NativeLibrary.loadProblem(NativeLibrary.RDMACM));
        SymbolLookup all = SymbolLookup.libraryLookup(NativeLibrary.IBVERBS, Arena.global())
                .or(SymbolLookup.libraryLookup(NativeLibrary.RDMACM, Arena.global()))
                .or(Linker.nativeLinker().defaultLookup());
        List<String> functions = Files.readAllLines(Path.of("..", "scripts", "jextract-verbs.args")).stream()
                .filter(l -> l.startsWith("--include-function "))
                .map(l -> l.substring("--include-function ".length()).trim())
                .toList();
        assertTrue(functions.size() > 30, "args file lists too few functions: " + functions);
        List<String> problems = new ArrayList<>();
        for (String f : functions) {
            if (all.find(f).isEmpty()) {
                problems.add(f + " is not exported");
            }
            if (!hasMethod(f)) {
                problems.add(f + " has no binding in a header class");
            }
        }
        for (String inline : List.of("ibv_poll_cq", "ibv_req_notify_cq", "ibv_post_send", "ibv_post_recv",
                "ibv_post_srq_recv")) {
            if (all.find(inline).isPresent()) {
                problems.add(inline + " is exported now: bind it directly");
            }
        }
        assertTrue(problems.isEmpty(), problems.toString());
    }

    private static boolean hasMethod(String name) {
        for (Class<?> h : List.of(verbs_h.class, rdma_cma_h.class, poll_h.class)) {
            for (var m : h.getMethods()) {
                if (m.getName().equals(name)) {
                    return true;
                }
            }
        }
        return false;
    }
}
