package io.jfabric.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.util.concurrent.Callable;

/**
 * The {@code jfabric} command. Each tool is a subcommand class listed in {@link #SUBCOMMANDS}:
 * {@code info} mirrors libfabric's fi_info; pingpong, bw and others are added as their own classes.
 */
@Command(name = "jfabric", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "jfabric: libfabric's object model in Java. Run 'jfabric <command> -h' for a command's options.",
        synopsisSubcommandLabel = "COMMAND")
public final class Main implements Callable<Integer> {
    /** The subcommands; add a tool by adding its class here. */
    static final Class<?>[] SUBCOMMANDS = {
        InfoCommand.class,
        io.jfabric.cli.pingpong.PingPongCommand.class,
        io.jfabric.cli.bw.BwCommand.class,
        io.jfabric.cli.bw.RmaBwCommand.class,
        io.jfabric.cli.bw.AtomicCommand.class,
    };

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the command line in-process with the given streams and returns the exit code. */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = commandLine();
        cl.setOut(out);
        cl.setErr(err);
        int rc = cl.execute(args);
        out.flush();
        err.flush();
        return rc;
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        for (Class<?> sub : SUBCOMMANDS) {
            cl.addSubcommand(sub);
        }
        // like fi_info: an unknown option or a missing value prints the message and usage, exit 1
        cl.setParameterExceptionHandler((ex, args) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            err.println(ex.getMessage());
            ex.getCommandLine().usage(err);
            return 1;
        });
        return cl;
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 1;
    }

    /** The jfabric version from the jar manifest, and the libfabric API it mirrors. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[]{"jfabric: " + jfabricVersion(), "libfabric api: 1.17"};
        }
    }

    static String jfabricVersion() {
        String v = Main.class.getPackage().getImplementationVersion();
        return v == null ? "0.1.0-SNAPSHOT" : v;
    }
}
