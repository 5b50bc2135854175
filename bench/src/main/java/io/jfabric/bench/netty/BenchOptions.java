package io.jfabric.bench.netty;

import java.util.ArrayList;
import java.util.List;

/** bench/netty's options, parsed once by the parent and handed to each forked transport as the same arguments. */
record BenchOptions(int forks, int rounds, int echoes, int unaries, int streamed, List<String> transports,
        boolean directExecutor, int streamChunk, double warmupMaxSeconds) {
    static final String USAGE = "bench/netty [--forks 2] [--rounds 5] [--warmup-max-seconds 30] [--echo 5000] "
            + "[--unary 2000] [--stream 1000] [--transports local,shm,tcp;ofi_rxm,loopback] [--direct-executor] "
            + "[--stream-kib 64]";

    static BenchOptions defaults() {
        return new BenchOptions(2, 5, 5000, 2000, 1000, List.of("local", "shm", "tcp;ofi_rxm", "loopback"), false,
                64 * 1024, 30);
    }

    /** Parses {@code args} over the defaults; unknown options are refused with the usage. */
    static BenchOptions parse(List<String> args) {
        BenchOptions o = defaults();
        int forks = o.forks;
        int rounds = o.rounds;
        int echoes = o.echoes;
        int unaries = o.unaries;
        int streamed = o.streamed;
        List<String> transports = o.transports;
        boolean direct = o.directExecutor;
        int chunk = o.streamChunk;
        double warmup = o.warmupMaxSeconds;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--direct-executor")) {
                direct = true;
                continue;
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException(a + " needs a value; usage: " + USAGE);
            }
            String v = args.get(++i);
            switch (a) {
                case "--forks" -> forks = positive(a, v);
                case "--rounds" -> rounds = positive(a, v);
                case "--echo" -> echoes = positive(a, v);
                case "--unary" -> unaries = positive(a, v);
                case "--stream" -> streamed = positive(a, v);
                case "--transports" -> transports = List.of(v.split(","));
                case "--stream-kib" -> chunk = positive(a, v) * 1024;
                case "--warmup-max-seconds" -> warmup = Double.parseDouble(v);
                default -> throw new IllegalArgumentException("unknown option " + a + "; usage: " + USAGE);
            }
        }
        return new BenchOptions(forks, rounds, echoes, unaries, streamed, transports, direct, chunk, warmup);
    }

    private static int positive(String option, String value) {
        int n = Integer.parseInt(value);
        if (n <= 0) {
            throw new IllegalArgumentException(option + " must be positive, not " + value);
        }
        return n;
    }

    /** The arguments a forked transport gets (everything but the fork count and the transport list). */
    List<String> childArgs() {
        List<String> a = new ArrayList<>(List.of("--rounds", Integer.toString(rounds), "--echo", Integer.toString(echoes),
                "--unary", Integer.toString(unaries), "--stream", Integer.toString(streamed),
                "--stream-kib", Integer.toString(streamChunk / 1024), "--warmup-max-seconds", Double.toString(warmupMaxSeconds)));
        if (directExecutor) {
            a.add("--direct-executor");
        }
        return a;
    }
}
