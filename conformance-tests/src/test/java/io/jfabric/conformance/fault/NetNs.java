package io.jfabric.conformance.fault;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace joined to this one by a veth pair, for a test that cuts a host off: the root end
 * {@code <prefix><pid>a} gets {@link #hostAddr}, the namespace's end {@code ...b} gets {@link #peerAddr}, both
 * in 198.18.0.0/15 (RFC 2544's benchmarking range, never routed) with the third octet from this pid, so
 * parallel runs don't collide. Created and removed with {@code ip}; {@link #removeStale} deletes what a
 * killed earlier run left behind. Needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN).
 */
final class NetNs extends CutOffLink {
    static final String PREFIX = "jfcut-";
    private static final String LINK_PREFIX = "jfc";

    final String name;
    final String hostLink;
    final String peerLink;

    private NetNs(long pid) {
        super("198.18." + (pid & 0xff) + ".1", "198.18." + (pid & 0xff) + ".2");
        name = PREFIX + pid;
        hostLink = LINK_PREFIX + pid + "a";
        peerLink = LINK_PREFIX + pid + "b";
    }

    /** Null when this process may not create namespaces, with the reason in {@code why[0]}. */
    static String unavailableReason() {
        try {
            if (!"0".equals(run(List.of("id", "-u")).trim())) {
                return "creating network namespaces needs root";
            }
            run(List.of("ip", "netns", "list"));
            return null;
        } catch (IOException e) {
            return "the ip command (iproute2) is not usable: " + e.getMessage();
        }
    }

    static NetNs create() throws IOException {
        removeStale();
        NetNs n = new NetNs(ProcessHandle.current().pid());
        try {
            n.ip("netns", "add", n.name);
            n.ip("link", "add", n.hostLink, "type", "veth", "peer", "name", n.peerLink);
            n.ip("link", "set", n.peerLink, "netns", n.name);
            n.ip("addr", "add", n.hostAddr + "/30", "dev", n.hostLink);
            n.ip("link", "set", n.hostLink, "up");
            n.inNs("ip", "addr", "add", n.peerAddr + "/30", "dev", n.peerLink);
            n.inNs("ip", "link", "set", n.peerLink, "up");
            n.inNs("ip", "link", "set", "lo", "up");
        } catch (IOException | RuntimeException e) {
            n.close();
            throw e;
        }
        return n;
    }

    /** The command prefix that runs a program inside the namespace. */
    @Override
    List<String> launcher() {
        return List.of("ip", "netns", "exec", name);
    }

    /** Sets the namespace's end of the link down (the host is cut off) or up again. */
    @Override
    void link(boolean up) throws IOException {
        inNs("ip", "link", "set", peerLink, up ? "up" : "down");
    }

    @Override
    public String toString() {
        return "namespace " + name + ", " + hostAddr + " <-> " + peerAddr;
    }

    @Override
    public void close() {
        quietly(List.of("ip", "netns", "del", name));
        quietly(List.of("ip", "link", "del", hostLink)); // gone with the namespace unless the move failed
    }

    /** Deletes namespaces and links of this prefix whose creating process is gone. */
    static void removeStale() {
        try {
            for (String line : run(List.of("ip", "netns", "list")).split("\n")) {
                String ns = line.trim().split("\\s+")[0];
                if (ns.startsWith(PREFIX) && !alive(ns.substring(PREFIX.length()))) {
                    quietly(List.of("ip", "netns", "del", ns));
                }
            }
            for (String line : run(List.of("ip", "-o", "link", "show")).split("\n")) {
                String[] f = line.split(":\\s+");
                if (f.length > 1) {
                    String link = f[1].split("@")[0];
                    if (link.startsWith(LINK_PREFIX) && link.endsWith("a")
                            && !alive(link.substring(LINK_PREFIX.length(), link.length() - 1))) {
                        quietly(List.of("ip", "link", "del", link));
                    }
                }
            }
        } catch (IOException e) {
            // nothing to clean without ip
        }
    }

    private static boolean alive(String pid) {
        try {
            return ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
        } catch (NumberFormatException e) {
            return true; // not ours
        }
    }

    private void ip(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        run(cmd);
    }

    private void inNs(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(launcher());
        cmd.addAll(List.of(args));
        run(cmd);
    }

    private static void quietly(List<String> cmd) {
        try {
            run(cmd);
        } catch (IOException ignored) {
            // already gone
        }
    }

    /** Runs {@code cmd}; its stdout, or IOException with its stderr when it fails or takes over 10 s. */
    static String run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(cmd + " took over 10 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(cmd + " interrupted");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(cmd + " exited with " + p.exitValue() + ": " + out.trim());
        }
        return out;
    }
}
