package io.jfabric.conformance;

import io.jfabric.FabricObject;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Per-test bookkeeping: the fabric objects a test opened (closed in reverse order after it), child
 * processes (killed after it) and state reporters. When a test fails, it prints what it knows: the case,
 * every tracked object (providers print their queues and connections in toString), the reporters, the tail
 * of each child's stderr and the Java threads, so a failure or a hang is never silent.
 */
public final class StateDump implements TestExecutionExceptionHandler, BeforeEachCallback, AfterEachCallback {
    private final Deque<FabricObject> objects = new ArrayDeque<>();
    private final List<Process> processes = new ArrayList<>();
    private final List<Path> processLogs = new ArrayList<>();
    private final List<Supplier<String>> reporters = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private FabricCase fabricCase;
    private boolean threadsWanted;

    /** Tracks {@code obj}; it is closed after the test unless the test closed it first. */
    public synchronized <T extends FabricObject> T track(T obj) {
        objects.push(obj);
        return obj;
    }

    /** The test closed {@code obj} itself. */
    public synchronized void closed(FabricObject obj) {
        objects.remove(obj);
    }

    /** Closes {@code obj} and forgets it. */
    public void close(FabricObject obj) {
        obj.close();
        closed(obj);
    }

    public synchronized void caseUnderTest(FabricCase c) {
        fabricCase = c;
    }

    public synchronized void process(Process p, Path stderrLog) {
        processes.add(p);
        processLogs.add(stderrLog);
    }

    public synchronized void reporter(Supplier<String> reporter) {
        reporters.add(reporter);
    }

    public synchronized void note(String note) {
        notes.add(note);
    }

    /** Cases of the native libfabric bridge (see {@link NativeCases}). */
    static final String NATIVE_PREFIX = "libfabric:";

    /** Names each test on stderr before it starts, so a crash of the whole JVM (a native bug) still says where. */
    @Override
    public void beforeEach(ExtensionContext context) {
        String test = context.getRequiredTestClass().getSimpleName() + "." + context.getRequiredTestMethod().getName();
        String display = context.getDisplayName();
        System.err.println("[conformance] " + test + " " + display);
        System.err.flush();
        if (display.contains(NATIVE_PREFIX)) {
            String notRun = NativeCases.whyNotRun(display);
            if (notRun != null) {
                org.junit.jupiter.api.Assumptions.abort("not run: " + notRun);
            }
        }
        for (KnownNativeCases list : KnownNativeCases.ALL) {
            String reason = list.reason(display, test);
            if (reason != null) {
                org.junit.jupiter.api.Assumptions.abort("not run: " + list.label + ": " + reason);
            }
        }
    }

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable throwable) throws Throwable {
        if (throwable instanceof org.opentest4j.TestAbortedException) {
            throw throwable; // "not run: reason" is an outcome, not a failure
        }
        threadsWanted = throwable instanceof java.util.concurrent.TimeoutException
                || String.valueOf(throwable.getMessage()).contains("timed out");
        System.err.println(dump(context.getDisplayName() + " (" + context.getRequiredTestMethod().getName()
                + ") failed: " + throwable));
        throw throwable;
    }

    public synchronized String dump(String headline) {
        StringBuilder sb = new StringBuilder();
        sb.append("===== state dump: ").append(headline).append('\n');
        if (fabricCase != null) {
            sb.append("case ").append(fabricCase.id()).append(": ").append(fabricCase.info()).append('\n');
        }
        for (String n : notes) {
            sb.append("note: ").append(n).append('\n');
        }
        for (FabricObject o : objects) {
            sb.append("open: ").append(safe(o::toString)).append('\n');
        }
        for (Supplier<String> r : reporters) {
            sb.append("state: ").append(safe(r)).append('\n');
        }
        for (int i = 0; i < processes.size(); i++) {
            Process p = processes.get(i);
            sb.append("child pid ").append(p.pid()).append(p.isAlive() ? " alive" : " exit " + p.exitValue())
                    .append(", stderr tail:\n").append(tail(processLogs.get(i))).append('\n');
        }
        if (threadsWanted) {
            appendThreads(sb);
        }
        sb.append("===== end of state dump");
        return sb.toString();
    }

    /** Java stacks, for a test that timed out: where each thread was stuck. */
    private static void appendThreads(StringBuilder sb) {
        sb.append("threads:\n");
        for (var t : Thread.getAllStackTraces().entrySet()) {
            sb.append("  \"").append(t.getKey().getName()).append("\" ").append(t.getKey().getState()).append('\n');
            StackTraceElement[] stack = t.getValue();
            for (int i = 0; i < Math.min(stack.length, 12); i++) {
                sb.append("      at ").append(stack[i]).append('\n');
            }
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        List<Throwable> problems = new ArrayList<>();
        synchronized (this) {
            for (Process p : processes) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            for (Process p : processes) {
                problems.addAll(removeLeftovers(p));
            }
            problems.addAll(closeTracked());
        }
        // a close that fails after a passing test is a finding of its own (EBUSY on the right order, a leak)
        if (!problems.isEmpty() && context.getExecutionException().isEmpty()) {
            AssertionError e = new AssertionError("closing the test's objects in reverse order failed: " + problems);
            problems.forEach(e::addSuppressed);
            System.err.println(dump("close after " + context.getDisplayName() + " failed"));
            throw e;
        }
    }

    /** Waits for a killed peer to exit, then removes the native shm regions it could not unlink. */
    private static List<Throwable> removeLeftovers(Process p) {
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                return List.of(new IllegalStateException("peer " + p.pid() + " still running 10 s after SIGKILL"));
            }
            NativeShmLeftovers.removeOf(p.pid());
            return List.of();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of(e);
        } catch (IOException e) {
            return List.of(e);
        }
    }

    /**
     * Closes every tracked object in reverse order of opening, now (a test that measures what closing
     * gives back); returns what failed to close.
     */
    public synchronized List<Throwable> closeTracked() {
        List<Throwable> problems = new ArrayList<>();
        while (!objects.isEmpty()) {
            FabricObject o = objects.pop();
            try {
                o.close();
            } catch (Throwable t) {
                problems.add(t);
            }
        }
        return problems;
    }

    private static String safe(Supplier<String> s) {
        try {
            return s.get();
        } catch (Throwable t) {
            return "<" + t + ">";
        }
    }

    private static String tail(Path log) {
        if (log == null) {
            return "    (not captured)";
        }
        try {
            List<String> lines = Files.readAllLines(log);
            return "    " + String.join("\n    ", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "    (unreadable: " + e + ")";
        }
    }
}
