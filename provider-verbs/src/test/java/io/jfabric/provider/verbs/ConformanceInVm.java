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
 * cases only. Arguments: class-name regexes to exclude. Prints one line per test; exits 0 when none
 * failed.
 */
public final class ConformanceInVm {
    private ConformanceInVm() {
    }

    public static void main(String[] args) {
        LauncherDiscoveryRequestBuilder b = LauncherDiscoveryRequestBuilder.request()
                .selectors(DiscoverySelectors.selectPackage("io.jfabric.conformance"))
                .configurationParameter("junit.jupiter.execution.timeout.default", "600 s")
                .configurationParameter("junit.jupiter.execution.timeout.mode", "enabled");
        if (args.length > 0) {
            b.filters(ClassNameFilter.excludeClassNamePatterns(args));
        }
        LauncherDiscoveryRequest request = b.build();
        Launcher launcher = LauncherFactory.create();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        TestExecutionListener lines = new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier id, String reason) {
                System.out.println("NOT RUN " + id.getDisplayName() + ": " + reason);
            }

            @Override
            public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (id.isTest()) {
                    System.out.println(result.getStatus() + " " + id.getUniqueId().replaceAll(".*class:", "")
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
