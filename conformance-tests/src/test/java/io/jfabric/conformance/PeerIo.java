package io.jfabric.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;

/**
 * The plumbing every peer JVM of the suite shares ({@link PeerMain}, the fault tests' peer): commands from
 * the parent on stdin, protocol lines to stdout, and a guard that ends the process when its time is up.
 */
public final class PeerIo {
    private PeerIo() {
    }

    /** Halts this JVM with status 3 after {@code ms}, so no test leaves a peer behind; interrupt to disarm. */
    public static Thread lifetimeGuard(long ms, String who) {
        return Thread.ofPlatform().daemon().start(() -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException ignored) {
                return;
            }
            System.err.println(who + ": lifetime exceeded, exiting");
            Runtime.getRuntime().halt(3);
        });
    }

    /** Feeds stdin's lines to {@code commands} from a daemon thread; adds QUIT when the parent goes away. */
    public static void readCommands(BlockingQueue<String> commands, String who) {
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    commands.add(line);
                }
            } catch (Exception e) {
                System.err.println(who + ": stdin: " + e);
            }
            commands.add("QUIT");
        });
    }

    /** Feeds a child process's stdout lines to {@code lines} from a daemon thread, then "EOF" when it ends. */
    public static void readLines(Process process, BlockingQueue<String> lines, String threadName) {
        Thread.ofPlatform().daemon().name(threadName).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    lines.add(l);
                }
            } catch (IOException ignored) {
                // the process ended
            }
            lines.add("EOF");
        });
    }

    /** One protocol line to the parent. */
    public static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
