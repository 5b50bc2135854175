package io.jfabric.provider.verbs;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.ClassNameFilter;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;

import java.io.PrintWriter;

/**
 * Runs the conformance suite (io.jfabric.conformance) with the JUnit platform launcher and a host-built
 * class path, for the Soft-RoCE VM where Maven is too slow. Set FI_PROVIDER=verbs to run the verbs
 * cases only. Arguments: class-name regexes to exclude; -Djfabric.conformance.include=regex[,regex] keeps only
 * the classes matching one of them. Prints one line per test; exits 0 when none
 * failed.
 */
public final class ConformanceInVm {
    private ConformanceInVm() {
    }

    public static void main(String[] args) {
        LauncherDiscoveryRequestBuilder b = LauncherDiscoveryRequestBuilder.request()
                // -Djfabric.conformance.package=io.jfabric.netty runs netty-transport's tests (verbs-in-vm netty)
                .selectors(DiscoverySelectors.selectPackage(System.getProperty("jfabric.conformance.package",
                        "io.jfabric.conformance")))
                // the suite's @Timeout bounds are host bounds; in the emulated VM its waits are stretched by
                // -Djfabric.conformance.timeScale instead, and the watchdog below bounds each test
                .configurationParameter("junit.jupiter.execution.timeout.mode", "disabled");
        String order = System.getProperty("jfabric.conformance.classOrder", "");
        if (!order.isBlank()) {
            // e.g. org.junit.jupiter.api.ClassOrderer$ClassName: the netty steps run echo and gRPC first, so that the
            // suite classes after them find Netty's paths compiled (a class that runs first pays for that, 10-15 x)
            b.configurationParameter("junit.jupiter.testclass.order.default", order);
        }
        if (args.length > 0) {
            b.filters(ClassNameFilter.excludeClassNamePatterns(args));
        }
        String include = System.getProperty("jfabric.conformance.include", "");
        if (!include.isBlank()) {
            // a developer's re-run of a few classes: a full VM pass takes most of CI's budget
            b.filters(ClassNameFilter.includeClassNamePatterns(include.split(",")));
        }
        LauncherDiscoveryRequest request = b.build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        long limitMs = Long.getLong("jfabric.conformance.testLimitMs", 300_000);
        java.util.concurrent.ScheduledExecutorService watchdog = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor(r -> Thread.ofPlatform().daemon().name("watchdog").unstarted(r));
        java.util.concurrent.atomic.AtomicReference<java.util.concurrent.ScheduledFuture<?>> armed =
                new java.util.concurrent.atomic.AtomicReference<>();
        // start times of tests and classes: a VM run's budget is spent per class, and its log says where
        java.util.Map<String, Long> started = new java.util.concurrent.ConcurrentHashMap<>();
        TestExecutionListener lines = new TestExecutionListener() {
            @Override
            public void executionStarted(TestIdentifier id) {
                started.put(id.getUniqueId(), System.nanoTime());
                if (id.isTest()) {
                    String name = id.getUniqueId().replaceAll(".*class:", "");
                    armed.set(watchdog.schedule(() -> {
                        // a test stuck past every stretched wait: say where, then end the run (no hang)
                        System.out.println("FAILED " + name + " -- still running after " + limitMs + " ms; threads:");
                        Thread.getAllStackTraces().forEach((t, st) -> {
                            System.out.println("  " + t);
                            for (StackTraceElement e : st) {
                                System.out.println("    at " + e);
                            }
                        });
                        System.out.flush();
                        Runtime.getRuntime().halt(1);
                    }, limitMs, java.util.concurrent.TimeUnit.MILLISECONDS));
                }
            }

            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                System.out.println("NOT RUN " + id.getDisplayName() + ": " + reason);
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                Long t0 = started.remove(id.getUniqueId());
                long ms = t0 == null ? 0 : (System.nanoTime() - t0) / 1_000_000;
                if (id.getSource().filter(s -> s instanceof org.junit.platform.engine.support.descriptor.ClassSource)
                        .isPresent()) {
                    System.out.println("CLASS " + id.getLegacyReportingName() + " " + result.getStatus() + " in " + ms
                            + " ms");
                    System.out.flush();
                }
                if (id.isTest()) {
                    java.util.concurrent.ScheduledFuture<?> f = armed.getAndSet(null);
                    if (f != null) {
                        f.cancel(false);
                    }
                    // a parameterized invocation's display name says its case ("[1] verbs"), its id only "#1"
                    String name = id.getUniqueId().replaceAll(".*class:", "");
                    if (name.contains("invocation:")) {
                        name += " " + id.getDisplayName();
                    }
                    System.out.println(result.getStatus() + " " + name + " (" + ms + " ms)"
                            + result.getThrowable().map(t -> " -- " + t).orElse(""));
                    System.out.flush();
                }
            }
        };
        launcher.execute(request, summary, lines);
        PrintWriter out = new PrintWriter(System.out, true);
        summary.getSummary().printTo(out);
        summary.getSummary().printFailuresTo(out, 5);
        System.exit(summary.getSummary().getTotalFailureCount() == 0 ? 0 : 1);
    }
}
