package io.jfabric.cli.bw;

import io.jfabric.EndpointType;
import io.jfabric.cli.ThreadingArg;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.Locale;

/** The options {@code bw} and {@code rma-bw} share (a picocli mixin), named as in fabtests where fabtests has them. */
public final class BenchArgs {
    @Option(names = "-p", paramLabel = "<provider>", description = "provider name, e.g. tcp, shm, \"tcp;ofi_rxm\"")
    String provider;

    @Option(names = "-e", paramLabel = "<ep_type>", description = "endpoint type: msg|rdm (msg)")
    String epType = "msg";

    @Option(names = "-S", paramLabel = "<size>",
            description = "message size (64, 4k, 1m), a comma list, or 'all' (1 B to 16 MiB in powers of two); "
                    + "default 1,64,1k,4k,64k,1m (rate mode: 1,8,64,256)")
    String size;

    @Option(names = "-I", paramLabel = "<number>", description = "timed windows per size (100)")
    int iterations = 100;

    @Option(names = "-w", paramLabel = "<number>", description = "warm-up windows per size, not timed (10)")
    int warmup = 10;

    @Option(names = "-W", paramLabel = "<number>", description = "window: operations in flight (64)")
    int window = 64;

    @Option(names = "-c", description = "check the data of every message")
    boolean verify;

    @Option(names = "-B", paramLabel = "<src_port>", description = "source control port (server: 47592, client: auto)")
    int srcPort;

    @Option(names = "-P", paramLabel = "<dst_port>", description = "destination control port (client: 47592)")
    int dstPort;

    @Option(names = "--json", paramLabel = "<file>", description = "also write the results as JSON ('-': stdout)")
    String json;

    @Option(names = "--csv", paramLabel = "<file>", description = "also write the results as CSV ('-': stdout)")
    String csv;

    @Option(names = "--no-progress", description = "no progress lines on stderr for long sizes")
    boolean noProgress;

    @Option(names = "--timeout", paramLabel = "<ms>", description = "longest wait for the peer, in ms (60000)")
    long timeoutMs = 60_000;

    @Option(names = "--threading", paramLabel = "<level>", description = ThreadingArg.DESCRIPTION)
    String threading;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "display this help output")
    boolean help;

    @Parameters(index = "0", arity = "0..1", paramLabel = "<srv_addr>", description = "server address (client mode)")
    String dstAddr;

    BenchOptions options(boolean tagged, boolean rate) {
        return options(tagged, rate, false);
    }

    BenchOptions options(boolean tagged, boolean rate, boolean more) {
        EndpointType type = switch (epType.toLowerCase(Locale.ROOT)) {
            case "msg" -> EndpointType.MSG;
            case "rdm" -> EndpointType.RDM;
            default -> throw new IllegalArgumentException("-e " + epType + ": use msg or rdm");
        };
        if (iterations < 1 || window < 1 || warmup < 0) {
            throw new IllegalArgumentException("-I and -W must be at least 1, -w at least 0");
        }
        if (window > 4096) {
            throw new IllegalArgumentException("-W " + window + ": at most 4096 operations in flight");
        }
        for (int port : new int[]{srcPort, dstPort}) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("port " + port + ": a port is 0..65535");
            }
        }
        return new BenchOptions(provider, type, tagged, BenchSizes.parse(size, rate), iterations, warmup, window,
                verify, rate, srcPort, dstPort, dstAddr, timeoutMs, json, csv, !noProgress, more,
                ThreadingArg.parse(threading));
    }
}
