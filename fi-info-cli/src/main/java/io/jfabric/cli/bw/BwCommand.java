package io.jfabric.cli.bw;

import io.jfabric.FabricException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.concurrent.Callable;

/**
 * {@code jfabric bw}: message bandwidth with a window of outstanding sends, like fabtests' fi_msg_bw
 * (-e msg) and fi_rdm_tagged_bw (-e rdm -m tagged), and a message-rate mode (--rate) that injects small
 * messages. Same client/server model and control port as {@code jfabric pingpong}: start the server with
 * no address, then the client with it. Difference from fabtests: the two sides are jfabric only (the
 * control protocol after set-up is jfabric's own).
 */
@Command(name = "bw", sortOptions = false,
        description = "Message bandwidth and message rate with a window of outstanding sends (fi_msg_bw, fi_rdm_tagged_bw).%n"
                + "  jfabric bw [OPTIONS]              start server%n"
                + "  jfabric bw [OPTIONS] <srv_addr>   connect to server and send")
public final class BwCommand implements Callable<Integer> {
    @Mixin
    BenchArgs args;

    @Option(names = "-m", paramLabel = "<mode>", description = "transmit mode: msg|tagged (msg)")
    String mode = "msg";

    @Option(names = "--rate", description = "message-rate mode: small sizes, fi_inject where allowed, reports Mxfers/sec")
    boolean rate;

    @Option(names = "--more", description = "rate mode: every post of a window but the last carries FI_MORE")
    boolean more;

    @Mixin
    IovArg iov;

    @Override
    public Integer call() {
        BenchOptions o;
        int pieces;
        try {
            if (!mode.equalsIgnoreCase("msg") && !mode.equalsIgnoreCase("tagged")) {
                throw new IllegalArgumentException("-m " + mode + ": use msg or tagged");
            }
            if (more && !rate) {
                throw new IllegalArgumentException("--more applies to --rate only");
            }
            pieces = iov.checked();
            if (pieces > 1 && rate) {
                throw new IllegalArgumentException("--iov applies to bandwidth mode, not --rate");
            }
            o = args.options(mode.equalsIgnoreCase("tagged"), rate, more);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 1;
        }
        BenchReport report = new BenchReport(System.out);
        BenchSession s = new BenchSession(o);
        try (s) {
            s.open(o.window(), o.maxSize(), 0);
            new MsgBandwidth(s, pieces, report, new Progress(System.err, o.progress())).run();
            s.finish();
            report.writeFiles(o.json(), o.csv());
            return 0;
        } catch (FabricException e) {
            System.err.println("jfabric bw: " + s.namingThePeer(e.getMessage()));
            return e.errno();
        } catch (IOException e) {
            System.err.println("jfabric bw: " + s.namingThePeer(e.getMessage()));
            return 5;
        }
    }
}
