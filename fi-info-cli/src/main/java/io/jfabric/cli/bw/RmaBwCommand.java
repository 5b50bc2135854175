package io.jfabric.cli.bw;

import io.jfabric.FabricException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jfabric rma-bw}: RMA bandwidth (fabtests' fi_rma_bw -o read|write|writedata) with a window of
 * outstanding operations. The server is the target; the client initiates. Same client/server model and
 * control port as {@code jfabric pingpong}.
 */
@Command(name = "rma-bw", sortOptions = false,
        description = "RMA bandwidth: read, write or writedata with a window of outstanding operations (fi_rma_bw).%n"
                + "  jfabric rma-bw [OPTIONS]              start the target%n"
                + "  jfabric rma-bw [OPTIONS] <srv_addr>   connect and initiate")
public final class RmaBwCommand implements Callable<Integer> {
    @Mixin
    BenchArgs args;

    @Option(names = "-o", paramLabel = "<op>", description = "operation: read|write|writedata (write)")
    String op = "write";

    @Mixin
    IovArg iov;

    @Override
    public Integer call() {
        BenchOptions o;
        RmaBandwidth.Op rmaOp;
        int pieces;
        try {
            rmaOp = switch (op.toLowerCase(Locale.ROOT)) {
                case "read" -> RmaBandwidth.Op.READ;
                case "write" -> RmaBandwidth.Op.WRITE;
                case "writedata" -> RmaBandwidth.Op.WRITEDATA;
                default -> throw new IllegalArgumentException("-o " + op + ": use read, write or writedata");
            };
            pieces = iov.checked();
            o = args.options(false, false);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 1;
        }
        BenchReport report = new BenchReport(System.out);
        BenchSession s = new BenchSession(o);
        try (s) {
            s.open(o.window(), o.maxSize(), o.maxSize());
            new RmaBandwidth(s, rmaOp, pieces, report, new Progress(System.err, o.progress())).run();
            s.finish();
            report.writeFiles(o.json(), o.csv());
            return 0;
        } catch (FabricException e) {
            System.err.println("jfabric rma-bw: " + s.namingThePeer(e.getMessage()));
            return e.errno();
        } catch (IOException e) {
            System.err.println("jfabric rma-bw: " + s.namingThePeer(e.getMessage()));
            return 5;
        }
    }
}
