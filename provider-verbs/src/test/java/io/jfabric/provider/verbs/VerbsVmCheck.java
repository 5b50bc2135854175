package io.jfabric.provider.verbs;

/**
 * Entry point scripts/verbs-in-vm runs inside the Soft-RoCE VM: discovery, then {@link VerbsScenario}
 * between rxe0 ($SOFTROCE_IP) and rxe1 ($SOFTROCE_IP2). Prints PASS/FAIL lines and a summary; exits 0
 * only when every check passed.
 */
public final class VerbsVmCheck {
    private VerbsVmCheck() {
    }

    public static void main(String[] args) throws Exception {
        String reason = new VerbsProvider().unavailableReason();
        if (reason != null) {
            System.out.println("FAIL verbs is unavailable: " + reason);
            System.exit(1);
        }
        String client = System.getenv().getOrDefault("SOFTROCE_IP", "192.0.2.1");
        String server = System.getenv().getOrDefault("SOFTROCE_IP2", "192.0.2.2");
        VerbsScenario s = new VerbsScenario(line -> {
            System.out.println(line);
            System.out.flush();
        });
        long t0 = System.nanoTime();
        try {
            s.run(client, server);
        } catch (Throwable t) {
            t.printStackTrace(System.out);
            s.failures().add("scenario aborted: " + t);
        }
        if (!"0".equals(System.getenv("VERBS_TWO_JVMS"))) {
            try {
                TwoProcessCheck.run(client, server, s::record, line -> {
                    System.out.println(line);
                    System.out.flush();
                });
            } catch (Throwable t) {
                t.printStackTrace(System.out);
                s.failures().add("two-JVM check aborted: " + t);
            }
        }
        String netdev2 = System.getenv("SOFTROCE_NETDEV2");
        if (netdev2 != null) { // only inside the VM: this takes a network interface down
            try {
                PortDownCheck.run(client, server, netdev2, s::record);
            } catch (Throwable t) {
                t.printStackTrace(System.out);
                s.failures().add("port-down check aborted: " + t);
            }
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        if (s.failures().isEmpty()) {
            System.out.println("verbs-in-vm: PASS (" + s.passed() + " checks, " + ms + " ms)");
            System.exit(0);
        }
        System.out.println("verbs-in-vm: FAIL (" + s.failures().size() + " failed, " + s.passed() + " passed): "
                + s.failures());
        System.exit(1);
    }
}
