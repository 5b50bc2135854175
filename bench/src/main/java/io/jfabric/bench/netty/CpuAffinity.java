package io.jfabric.bench.netty;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * Linux's {@code sched_getaffinity(2)} and {@code sched_setaffinity(2)} for the calling thread, through FFM. Called
 * once per thread, when it starts, so the masks are allocated per call. Callers check
 * {@link #unavailabilityCause()} first.
 */
final class CpuAffinity {
    /** Bytes of a CPU mask: room for 1,024 CPUs, glibc's {@code cpu_set_t}. */
    private static final int MASK_BYTES = 128;

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final MethodHandle GET;
    private static final MethodHandle SET;
    private static final Throwable UNAVAILABLE;

    static {
        MethodHandle get = null;
        MethodHandle set = null;
        Throwable failure = null;
        try {
            Linker linker = Linker.nativeLinker();
            // int fn(pid_t pid, size_t cpusetsize, cpu_set_t *mask); pid 0 is the calling thread
            FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
            Linker.Option errno = Linker.Option.captureCallState("errno");
            get = linker.downcallHandle(linker.defaultLookup().findOrThrow("sched_getaffinity"), fd, errno);
            set = linker.downcallHandle(linker.defaultLookup().findOrThrow("sched_setaffinity"), fd, errno);
        } catch (Throwable t) {
            failure = t;
        }
        GET = get;
        SET = set;
        UNAVAILABLE = failure;
    }

    private CpuAffinity() {
    }

    /** Why the calls cannot be made here, or null when they can. */
    static Throwable unavailabilityCause() {
        return UNAVAILABLE;
    }

    /** The CPUs the calling thread may run on, in ascending order. */
    static List<Integer> allowedCpus() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES);
            MemorySegment state = arena.allocate(CALL_STATE);
            int rc = (int) GET.invokeExact(state, 0, (long) MASK_BYTES, mask);
            if (rc != 0) {
                throw new IllegalStateException("sched_getaffinity failed: errno " + (int) ERRNO.get(state, 0L));
            }
            List<Integer> cpus = new ArrayList<>();
            for (int cpu = 0; cpu < MASK_BYTES * 8; cpu++) {
                if ((mask.get(ValueLayout.JAVA_BYTE, cpu / 8) & (1 << (cpu % 8))) != 0) {
                    cpus.add(cpu);
                }
            }
            return List.copyOf(cpus);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Restricts the calling thread to {@code cpu}. */
    static void pinCurrentThread(int cpu) {
        if (cpu < 0 || cpu >= MASK_BYTES * 8) {
            throw new IllegalArgumentException("CPU " + cpu + " is outside 0-" + (MASK_BYTES * 8 - 1));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(MASK_BYTES);
            MemorySegment state = arena.allocate(CALL_STATE);
            mask.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
            int rc = (int) SET.invokeExact(state, 0, (long) MASK_BYTES, mask);
            if (rc != 0) {
                throw new IllegalStateException("sched_setaffinity to CPU " + cpu + " failed: errno "
                        + (int) ERRNO.get(state, 0L));
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
