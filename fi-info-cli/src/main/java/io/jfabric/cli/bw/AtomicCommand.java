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
 * initiates. Same client/server model and control port as {@code jfabric rma-bw}. With -c the client checks every
 * test's target element and fetched element ({@link AtomicExpectation}) and exits 1 when one is wrong.
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

    private record Choice(BenchOptions o, List<AtomicOp> ops, List<AtomicDatatype> types) {
    }

    /** The options, or null after saying on stderr what is wrong with them. */
    private Choice choice() {
        try {
            return new Choice(args.options(false, false), parse(AtomicOp.values(), op, "-o"),
                    parse(AtomicDatatype.values(), datatype, "-z"));
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            return null;
        }
    }

    @Override
    public Integer call() {
        Choice c = choice();
        if (c == null) {
            return 1;
        }
        try (BenchSession s = new BenchSession(c.o())) {
            s.extraCaps = Caps.ATOMIC;
            s.open(c.o().window(), 64, 64);
            BenchReport report = new BenchReport(System.out);
            AtomicBench bench = new AtomicBench(s, c.ops(), c.types(), report);
            bench.run();
            s.finish();
            report.writeFiles(c.o().json(), c.o().csv());
            if (!bench.mismatches().isEmpty()) {
                System.err.println("jfabric atomic -c: " + bench.mismatches().size()
                        + " test(s) left a wrong target element or fetched a wrong one (listed above)");
                return 1;
            }
            return 0;
        } catch (FabricException | IOException e) {
            System.err.println("jfabric atomic: " + e.getMessage());
            return e instanceof FabricException f ? f.errno() : 5;
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
