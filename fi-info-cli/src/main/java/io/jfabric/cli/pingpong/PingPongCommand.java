package io.jfabric.cli.pingpong;

import io.jfabric.EndpointType;
import io.jfabric.cli.ThreadingArg;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

/**
 * {@code jfabric pingpong}: libfabric's {@code fi_pingpong} with its options, its out-of-band control
 * protocol and its result table, so it runs against the C tool in either role. Start the server with no
 * address, then the client with the server's address.
 */
@Command(name = "pingpong", mixinStandardHelpOptions = false, sortOptions = false,
        description = "Ping pong client and server, compatible with libfabric's fi_pingpong.%n"
                + "  jfabric pingpong [OPTIONS]              start server%n"
                + "  jfabric pingpong [OPTIONS] <srv_addr>   connect to server")
public final class PingPongCommand implements Callable<Integer> {

    @Option(names = "-B", paramLabel = "<src_port>",
            description = "source control port number (server: 47592, client: auto)")
    int srcPort;

    @Option(names = "-P", paramLabel = "<dst_port>", description = "destination control port number (client: 47592)")
    int dstPort;

    @Option(names = "-d", paramLabel = "<domain>", description = "domain name")
    String domain;

    @Option(names = "-p", paramLabel = "<provider>", description = "specific provider name eg tcp, shm, \"tcp;ofi_rxm\"")
    String provider;

    @Option(names = "-e", paramLabel = "<ep_type>", description = "endpoint type: msg|rdm|dgram (dgram)")
    String epType = "dgram";

    @Option(names = "-I", paramLabel = "<number>", description = "number of iterations (10)")
    int iterations = 10;

    @Option(names = "--warmup", paramLabel = "<number>",
            description = "untimed round trips before each size's timed ones, so the JIT has compiled the loop; "
                    + "both sides must give the same number, and it must be 0 against C fi_pingpong (0)")
    int warmup;

    @Option(names = "-S", paramLabel = "<size>", description = "specific transfer size or 'all' (default sizes: 64 B to 1 MiB)")
    String size;

    @Option(names = "-c", description = "enables data_integrity checks")
    boolean verify;

    @Option(names = "-m", paramLabel = "<transmit mode>", description = "transmit mode type: msg|tagged (msg)")
    String mode = "msg";

    @Option(names = "-v", description = "enable debugging output")
    boolean debug;

    @Option(names = "-6", description = "use IPv6 address")
    boolean ipv6;

    @Option(names = "--threading", paramLabel = "<level>", description = ThreadingArg.DESCRIPTION)
    String threading;

    @Option(names = "--timeout", paramLabel = "<ms>",
            description = "longest wait for the peer before giving up, in ms; 0 waits forever as fi_pingpong does (60000)")
    long timeoutMs = 60_000;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "display this help output")
    boolean help;

    @Parameters(index = "0", arity = "0..1", paramLabel = "<srv_addr>", description = "server address (client mode)")
    String dstAddr;

    @Override
    public Integer call() {
        PingPongOptions o;
        try {
            o = options();
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 1;
        }
        try (PingPong pp = new PingPong(o, System.out, System.err)) {
            return pp.run();
        }
    }

    PingPongOptions options() {
        EndpointType type = switch (epType.toLowerCase(java.util.Locale.ROOT)) {
            case "msg" -> EndpointType.MSG;
            case "rdm" -> EndpointType.RDM;
            case "dgram" -> EndpointType.DGRAM;
            default -> throw new IllegalArgumentException("Unknown endpoint : " + epType);
        };
        boolean tagged = !mode.equalsIgnoreCase("msg"); // fi_pingpong: anything but "msg" means tagged
        boolean all = false;
        int s = -1;
        if (size != null) {
            if (size.equalsIgnoreCase("all")) {
                all = true;
            } else {
                s = parse(size, Integer.MAX_VALUE, "-S");
            }
        }
        io.jfabric.Threading level = ThreadingArg.parse(threading);
        checkPort(srcPort, "-B");
        checkPort(dstPort, "-P");
        return new PingPongOptions(provider, domain, type, tagged, Math.max(0, iterations), Math.max(0, warmup), s, all, verify, srcPort,
                dstPort, dstAddr, ipv6, debug, timeoutMs, level);
    }

    private static int parse(String text, int max, String what) {
        try {
            int v = Integer.parseInt(text);
            if (v < 0 || v > max) {
                throw new IllegalArgumentException("Error parsing \"" + text + "\" (" + what + "): out of range 0.." + max);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Error parsing \"" + text + "\" (" + what + "): not a number");
        }
    }

    private static void checkPort(int port, String what) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(what + " " + port + ": a port is 0..65535");
        }
    }

    /** Standalone entry point, the same as {@code jfabric pingpong}. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new PingPongCommand()).execute(args));
    }
}
