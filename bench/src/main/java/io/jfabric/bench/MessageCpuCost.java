package io.jfabric.bench;

import io.jfabric.Caps;
import io.jfabric.EndpointType;
import io.jfabric.FabricInfo;
import io.jfabric.Threading;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * Thread CPU time per message of {@link MessageStream} (64 B, one thread, an in-process pair, as
 * MessageRateBench.window): the provider's own cost per message, system calls included, measured by the thread's
 * CPU clock rather than the wall clock, so that a loaded machine (other processes taking the cores) changes the
 * figure far less than it changes JMH's time per message. Meant for A/B comparisons of two builds run in turn.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar io.jfabric.bench.MessageCpuCost \
 *      'tcp;ofi_rxm' 5 100000        # provider, rounds, messages per round; prints ns per message per round
 * ... MessageCpuCost 'tcp;ofi_rxm' 5 100000 domain    # both domains at FI_THREAD_DOMAIN (default: the provider's)
 * </pre>
 */
public final class MessageCpuCost {
    private static final long SIZE = 64;
    private static final int WARMUP_RUNS = 60;
    private static final long WARMUP_MESSAGES = 10_000;
    private static final long BUDGET_NANOS = 120_000_000_000L;

    private MessageCpuCost() {
    }

    public static void main(String[] args) {
        String provider = args.length > 0 ? args[0] : "tcp;ofi_rxm";
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long messages = args.length > 2 ? Long.parseLong(args[2]) : 100_000;
        EndpointType type = provider.equals("tcp") ? EndpointType.MSG : EndpointType.RDM;
        FabricInfo info = MessagePair.find(provider, type, Caps.MSG);
        if (info == null) {
            System.err.println("provider " + provider + " has no " + type + " endpoint with FI_MSG here");
            System.exit(2);
        }
        if (args.length > 3) {
            info.domainAttr.threading = Threading.parse(args[3]);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (MessagePair pair = new MessagePair(info, MessageStream.WINDOW * SIZE)) {
            MessageStream stream = new MessageStream(pair, SIZE);
            // until C2 has compiled the path: the first rounds otherwise measure the JIT
            for (int i = 0; i < WARMUP_RUNS; i++) {
                stream.run(WARMUP_MESSAGES, System.nanoTime() + BUDGET_NANOS);
            }
            long[] ns = new long[rounds];
            for (int r = 0; r < rounds; r++) {
                long c0 = threads.getCurrentThreadCpuTime();
                stream.run(messages, System.nanoTime() + BUDGET_NANOS);
                ns[r] = Math.round((threads.getCurrentThreadCpuTime() - c0) / (double) messages);
            }
            long[] sorted = ns.clone();
            Arrays.sort(sorted);
            StringBuilder out = new StringBuilder(provider).append(' ').append(info.domainAttr.threading)
                    .append(" ns CPU/msg:");
            for (long v : ns) {
                out.append(' ').append(v);
            }
            System.out.println(out.append(" median ").append(sorted[rounds / 2]));
        }
    }
}
