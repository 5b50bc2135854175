package io.jfabric.provider.libfabric.ffi;

import io.jfabric.provider.libfabric.ffi.generated.Fabric_h;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The few C library calls the libfabric provider needs: strings and buffers that libfabric later releases with
 * {@code free()} (fi_freeinfo frees every pointer in an fi_info, so hint strings and addresses set
 * from Java must come from malloc, not from an Arena).
 */
public final class LibC {

    private LibC() {
    }

    private static final Linker LINKER = Linker.nativeLinker();

    private static final MethodHandle STRDUP = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("strdup"),
            FunctionDescriptor.of(Fabric_h.C_POINTER, Fabric_h.C_POINTER));

    private static final MethodHandle MALLOC = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("malloc"),
            FunctionDescriptor.of(Fabric_h.C_POINTER, Fabric_h.C_LONG));

    private static final MethodHandle FREE = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("free"),
            FunctionDescriptor.ofVoid(Fabric_h.C_POINTER));

    private static final MethodHandle SETENV = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("setenv"),
            FunctionDescriptor.of(Fabric_h.C_INT, Fabric_h.C_POINTER, Fabric_h.C_POINTER, Fabric_h.C_INT));

    private static final MethodHandle UNSETENV = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("unsetenv"),
            FunctionDescriptor.of(Fabric_h.C_INT, Fabric_h.C_POINTER));

    /**
     * setenv(name, value, 1), or unsetenv(name) when {@code value} is null: the process environment
     * that native libraries read with getenv (Java's System.getenv keeps its startup copy).
     */
    public static int setenv(String name, String value) {
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            return value == null ? (int) UNSETENV.invokeExact(a.allocateFrom(name))
                    : (int) SETENV.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 1);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** strdup(s): a malloc'd copy of the NUL-terminated string {@code s}. */
    public static MemorySegment strdup(MemorySegment s) {
        try {
            return (MemorySegment) STRDUP.invokeExact(s);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** malloc(size); the result is sized to {@code size} bytes, or NULL. */
    public static MemorySegment malloc(long size) {
        try {
            MemorySegment p = (MemorySegment) MALLOC.invokeExact(size);
            return p.address() == 0 ? MemorySegment.NULL : p.reinterpret(size);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** free(p). */
    public static void free(MemorySegment p) {
        try {
            FREE.invokeExact(p);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
