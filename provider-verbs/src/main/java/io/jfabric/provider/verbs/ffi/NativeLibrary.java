package io.jfabric.provider.verbs.ffi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Loading of the native libraries and the shared pieces of the generated header classes
 * ({@link verbs_h}, {@link rdma_cma_h}, {@link poll_h}): jextract puts these in each header class;
 * here they are shared because three headers use them.
 */
public final class NativeLibrary {
    private NativeLibrary() {
    }

    /** The SONAMEs bound (the runtime packages: libibverbs1, librdmacm1, libc6). */
    public static final String IBVERBS = "libibverbs.so.1";
    public static final String RDMACM = "librdmacm.so.1";

    static final Linker LINKER = Linker.nativeLinker();

    /** The layout of the state {@code captureCallState("errno")} fills. */
    public static final MemoryLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /**
     * Why {@code soname} cannot be loaded, or null when it can. Discovery asks this before it touches a
     * header class, so a machine without rdma-core gets a reason instead of an ExceptionInInitializerError.
     */
    public static String loadProblem(String soname) {
        try {
            SymbolLookup.libraryLookup(soname, Arena.global());
            return null;
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return soname + " cannot be loaded (" + e.getMessage() + "); install rdma-core's runtime "
                    + "(Debian: libibverbs1 librdmacm1 ibverbs-providers)";
        }
    }

    static SymbolLookup lookup(String soname) {
        return SymbolLookup.libraryLookup(soname, Arena.global());
    }

    static MethodHandle downcall(SymbolLookup lib, String name, FunctionDescriptor desc) {
        MemorySegment addr = lib.find(name).orElseThrow(() -> new UnsatisfiedLinkError("symbol " + name + " not found"));
        return LINKER.downcallHandle(addr, desc);
    }

    /** As {@link #downcall}, with errno captured into a {@link #CAPTURE_LAYOUT} segment passed first. */
    static MethodHandle downcallErrno(SymbolLookup lib, String name, FunctionDescriptor desc) {
        MemorySegment addr = lib.find(name).orElseThrow(() -> new UnsatisfiedLinkError("symbol " + name + " not found"));
        return LINKER.downcallHandle(addr, desc, CAPTURE_ERRNO);
    }

    /** A handle that calls a function pointer passed as its first argument (ops-table dispatch). */
    static MethodHandle pointerCall(FunctionDescriptor desc) {
        return LINKER.downcallHandle(desc);
    }

    /** Allocates a segment for {@code captureCallState("errno")}. */
    public static MemorySegment allocateCaptureState(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /** The errno a capturing call left in {@code state}. */
    public static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** A NUL-terminated C string returned by a library (never freed by the caller), or null. */
    public static String string(MemorySegment cstr) {
        return cstr == null || cstr.equals(MemorySegment.NULL) ? null : cstr.reinterpret(4096).getString(0);
    }

    static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
}
