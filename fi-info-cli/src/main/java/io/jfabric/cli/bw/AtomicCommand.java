package io.jfabric.cli.bw;

import io.jfabric.AtomicDatatype;
import io.jfabric.AtomicOp;
import io.jfabric.Caps;
import io.jfabric.FabricException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jfabric atomic}: latency and rate of remote atomics per operation and datatype (fabtests' fi_rdm_atomic
 * -o/-z), with a window of outstanding operations on one target element. The server is the target; the client
 * initiates. Same client/server model and control port as {@code jfabric rma-bw}.
 */
@Command(name = "atomic", sortOptions = false,
        description = "Atomic latency and rate per operation and datatype (fi_rdm_atomic).%n"
                + "  jfabric atomic [OPTIONS]              start the target%n"
                + "  jfabric atomic [OPTIONS] <srv_addr>   connect and initiate")
public final class AtomicCommand implements Callable<Integer> {
    @Mixin
    BenchArgs args;

    @Option(names = "-o", paramLabel = "<op>", description = "operation: min|max|sum|prod|lor|land|bor|band|lxor|"
            + "bxor|read|write|cswap|cswap_ne|cswap_le|cswap_lt|cswap_ge|cswap_gt|mswap|all (all)")
    String op = "all";

    @Option(names = "-z", paramLabel = "<datatype>", description = "datatype: int8|uint8|...|uint64|float|double|"
            + "float_complex|double_complex|long_double|long_double_complex|all (uint64)")
    String datatype = "uint64";

    @Override
    public Integer call() {
        BenchOptions o;
        List<AtomicOp> ops;
        List<AtomicDatatype> types;
        try {
            ops = parse(AtomicOp.values(), op, "-o");
            types = parse(AtomicDatatype.values(), datatype, "-z");
            o = args.options(false, false);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return 1;
        }
        BenchReport report = new BenchReport(System.out);
        try (BenchSession s = new BenchSession(o)) {
            s.extraCaps = Caps.ATOMIC;
            s.open(o.window(), 64, 64);
            new AtomicBench(s, ops, types, report).run();
            report.writeFiles(o.json(), o.csv());
            return 0;
        } catch (FabricException e) {
            System.err.println("jfabric atomic: " + e.getMessage());
            return e.errno();
        } catch (IOException e) {
            System.err.println("jfabric atomic: " + e.getMessage());
            return 5;
        }
    }

    /** fabtests' names: the enum name without FI_, lower case ({@code read} and {@code write} for the atomic ones). */
    private static <E extends Enum<E>> List<E> parse(E[] all, String name, String flag) {
        String n = name.toLowerCase(Locale.ROOT);
        List<E> out = new ArrayList<>();
        for (E e : all) {
            if (n.equals("all") || n.equals(shortName(e))) {
                out.add(e);
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(flag + " " + name + ": not a name this option takes (see --help)");
        }
        return out;
    }

    static String shortName(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace("atomic_", "");
    }
}
