package io.jfabric.conformance;

import java.io.IOException;
import java.nio.file.Files;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs a check in a child JVM ({@link PeerMain} role "check:name") and turns its outcome into this test's:
 * exit 0 passes, an assertion in the child fails with the child's message, and a crash (a native abort, a
 * signal) fails naming the signal and the child's last words. Used where a provider that breaks the
 * contract would take the whole test JVM down with it.
 */
final class IsolatedCheck {
    static final long TIMEOUT_MS = 60_000;

    private IsolatedCheck() {
    }

    static void run(FabricCase c, String check, StateDump dump) throws IOException, InterruptedException {
        PeerProcess child = PeerProcess.start(c, "check:" + check, dump);
        int rc = child.awaitExit(TIMEOUT_MS);
        if (rc != 0) {
            String log = Files.readString(child.log());
            String why = rc > 128 ? "the child JVM died of signal " + (rc - 128) + " (a crash: the process must never crash)"
                    : "the check failed in the child JVM (exit " + rc + ")";
            java.nio.file.Path hsErr = child.log().resolveSibling("hs_err_pid" + child.pid() + ".log");
            fail(c.id() + " " + check + ": " + why + (Files.exists(hsErr) ? "; JVM crash report " + hsErr.toAbsolutePath() : "")
                    + "; its stderr:\n" + log);
        }
    }

    /** In the child: runs the named check; returns the exit status. */
    static int runInChild(FabricCase c, String check) {
        StateDump dump = new StateDump();
        try {
            switch (check) {
                case "closeOrder" -> CloseOrderChecks.closeOrder(c, dump);
                default -> throw new IllegalArgumentException("no isolated check " + check);
            }
            return 0;
        } catch (Throwable t) {
            t.printStackTrace();
            System.err.println(dump.dump(check + " failed"));
            return 1;
        }
    }
}
