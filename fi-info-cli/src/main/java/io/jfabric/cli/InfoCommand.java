package io.jfabric.cli;

import io.jfabric.FabricException;
import io.jfabric.FabricInfo;
import io.jfabric.Fabrics;
import io.jfabric.InfoPrinter;
import io.jfabric.spi.ProviderStatus;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code jfabric info}: libfabric's {@code fi_info} (util/info.c) over jfabric's providers, with the
 * same option letters, output layout and exit codes (0, or the errno of a failed fi_getinfo such as
 * 61 for FI_ENODATA, 22 for a bad option value, 1 for -h or an unknown option). Differences: a failed
 * lookup also says, provider by provider, why nothing matched; {@code -l --verbose} lists unavailable
 * providers with the reason; {@code -e} lists parameters even when no provider matches.
 */
@Command(name = "info", description = "List the fabric interfaces jfabric's providers offer (libfabric's fi_info).",
        usageHelpAutoWidth = true, sortOptions = false)
public final class InfoCommand implements Callable<Integer> {
    static final int EXIT_FAILURE = 1;
    static final int EINVAL = 22;

    @Option(names = {"-h", "--help"}, description = "display this help and exit")
    boolean help;
    @Option(names = {"-s", "--src_addr"}, paramLabel = "ADDR", description = "source name or address")
    String srcAddr;
    @Option(names = {"-n", "--node"}, paramLabel = "NAME", description = "dest node name or address")
    String node;
    @Option(names = {"-P", "--port"}, paramLabel = "PNUM", description = "port number")
    String port;
    @Option(names = {"-c", "--caps"}, paramLabel = "CAP1|CAP2..", description = "one or more capabilities: FI_MSG|FI_RMA...")
    String caps;
    @Option(names = {"-m", "--mode"}, paramLabel = "MOD1|MOD2..", description = "one or more modes, default all modes")
    String mode;
    @Option(names = {"-t", "--ep_type"}, paramLabel = "EPTYPE",
            description = "specify single endpoint type: FI_EP_MSG, FI_EP_DGRAM...")
    String epType;
    @Option(names = {"-d", "--domain"}, paramLabel = "DOMAIN", description = "specify the domain name")
    String domain;
    @Option(names = {"-f", "--fabric"}, paramLabel = "FABRIC", description = "specify the fabric name")
    String fabric;
    @Option(names = {"-a", "--addr_format"}, paramLabel = "FMT",
            description = "specify accepted address format: FI_FORMAT_UNSPEC, FI_SOCKADDR...")
    String addrFormat;
    @Option(names = {"-p", "--provider"}, paramLabel = "PROV", description = "specify provider explicitly")
    String provider;
    @Option(names = {"-e", "--env"}, description = "print jfabric environment variables (provider parameters)")
    boolean env;
    @Option(names = {"-g", "--getenv"}, paramLabel = "SUBSTR", description = "print jfabric environment variables with substr")
    String getenv;
    @Option(names = {"-i", "--info"}, paramLabel = "SUBSTR", description = "print fi_info structures containing substr")
    String infoSubstr;
    @Option(names = {"-l", "--list"}, description = "list available providers; with --verbose, also unavailable ones and why")
    boolean list;
    @Option(names = {"-v", "--verbose"}, description = "verbose output")
    boolean verbose;
    @Option(names = "--version", description = "print version info and exit")
    boolean version;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (help) {
            spec.commandLine().usage(out);
            return EXIT_FAILURE;
        }
        if (version) {
            out.println("jfabric info: " + Main.jfabricVersion());
            out.println("libfabric api: " + Fabrics.major(Fabrics.API_VERSION) + "." + Fabrics.minor(Fabrics.API_VERSION));
            return 0;
        }
        if (env || getenv != null) {
            EnvPrinter.print(out, EnvPrinter.all(), getenv);
            return 0;
        }
        if (list && verbose) {
            listAll(out);
            return 0;
        }
        FabricInfo hints;
        try {
            hints = hints();
        } catch (HintOptions.BadValue e) {
            err.println(e.getMessage());
            return EINVAL;
        }
        String nodeName = node;
        long flags = 0;
        if (srcAddr != null) {
            nodeName = srcAddr;
            flags |= Fabrics.SOURCE;
        }
        if (list) {
            flags |= Fabrics.PROV_ATTR_ONLY;
        }
        List<FabricInfo> infos;
        try {
            infos = Fabrics.getInfo(Fabrics.API_VERSION, nodeName, port, flags, hints);
        } catch (FabricException e) {
            err.println("fi_getinfo: -" + e.errno());
            err.println(e.getMessage());
            return e.errno();
        }
        if (verbose || infoSubstr != null) {
            for (FabricInfo i : infos) {
                String text = InfoPrinter.toString(i);
                if (infoSubstr == null || text.toLowerCase(Locale.ROOT).contains(infoSubstr.toLowerCase(Locale.ROOT))) {
                    out.print("---\n" + text);
                }
            }
        } else if (list) {
            for (FabricInfo i : infos) {
                out.print(InfoPrinter.providerEntry(i.fabricAttr.provName, i.fabricAttr.provVersion));
            }
        } else {
            for (FabricInfo i : infos) {
                out.print(InfoPrinter.summary(i));
            }
        }
        out.flush();
        return 0;
    }

    /** fi_info's hints: null unless a hint option was given. */
    FabricInfo hints() throws HintOptions.BadValue {
        if (caps == null && mode == null && epType == null && addrFormat == null && provider == null
                && domain == null && fabric == null) {
            return null;
        }
        FabricInfo h = HintOptions.baseHints();
        if (caps != null) {
            h.caps = HintOptions.caps(caps);
        }
        if (mode != null) {
            h.mode = HintOptions.mode(mode);
        }
        if (epType != null) {
            h.epAttr.type = HintOptions.epType(epType);
        }
        if (addrFormat != null) {
            h.addrFormat = HintOptions.addrFormat(addrFormat);
        }
        h.fabricAttr.provName = provider;
        h.domainAttr.name = domain;
        h.fabricAttr.name = fabric;
        return h;
    }

    /** -l --verbose: every provider found, with the reason for each unavailable one. */
    private static void listAll(PrintWriter out) {
        List<ProviderStatus> all = Fabrics.providers();
        if (all.isEmpty()) {
            out.println("no providers found: put provider modules (provider-tcp, provider-shm, ...) on the class path");
        }
        for (ProviderStatus s : all) {
            out.print(InfoPrinter.providerEntry(s.name(), s.version()));
            out.println("    type: " + (s.utility() ? "utility" : "core"));
            out.println("    status: " + (s.available() ? "available" : "unavailable: " + s.unavailableReason()));
        }
        out.flush();
    }
}
