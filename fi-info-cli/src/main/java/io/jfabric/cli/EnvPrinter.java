package io.jfabric.cli;

import io.jfabric.spi.FabricProvider;
import io.jfabric.spi.ProviderParameter;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.ServiceLoader;

/**
 * {@code fi_info -e / -g}: every parameter with its type, help and default, in fi_info's layout
 * ("# NAME: Type", "# help", and "NAME=value" when set). jfabric's own variables come first.
 */
final class EnvPrinter {
    private EnvPrinter() {
    }

    /** jfabric's core variables (libfabric's core section of fi_info -e). */
    static List<ProviderParameter> coreParameters() {
        return List.of(
                new ProviderParameter("core", "provider", "string", "",
                        "Only use specified provider (comma list; a leading ^ excludes them). "
                                + "-Djfabric.provider=... overrides it"),
                new ProviderParameter("core", "log_level", "string", "warn",
                        "Specify logging level: warn, info, debug, trace, none. -Djfabric.log.level=... overrides it"));
    }

    /** Every parameter of every provider ServiceLoader can instantiate, providers sorted by name. */
    static List<ProviderParameter> all() {
        List<ProviderParameter> out = new ArrayList<>(coreParameters());
        List<FabricProvider> providers = new ArrayList<>();
        var it = ServiceLoader.load(FabricProvider.class).stream().iterator();
        while (true) {
            try {
                if (!it.hasNext()) {
                    break;
                }
                providers.add(it.next().get());
            } catch (Throwable t) {
                // a provider that fails to load has no parameters to show; `info -l --verbose` says why
            }
        }
        providers.sort(java.util.Comparator.comparing(FabricProvider::name));
        for (FabricProvider p : providers) {
            try {
                out.addAll(p.parameters());
            } catch (RuntimeException e) {
                // same: listing must never fail because one provider does
            }
        }
        return out;
    }

    static void print(PrintWriter out, List<ProviderParameter> params, String substring) {
        for (ProviderParameter p : params) {
            String env = envName(p);
            if (substring != null && !env.toLowerCase(Locale.ROOT).contains(substring.toLowerCase(Locale.ROOT))) {
                continue;
            }
            out.println("# " + env + ": " + typeName(p.type()));
            String prefix = p.provider().equals("core") ? "" : p.provider() + ": ";
            String def = p.defaultValue() == null || p.defaultValue().isEmpty() ? "" : " (default: " + p.defaultValue() + ")";
            out.println("# " + prefix + p.help() + def);
            String value = setValue(p, env);
            if (value != null) {
                String q = value.contains(" ") ? "\"" : "";
                out.println(env + "=" + q + value + q);
            }
            out.println();
        }
    }

    private static String envName(ProviderParameter p) {
        return p.provider().equals("core") ? ("FI_" + p.name()).toUpperCase(Locale.ROOT) : p.envName();
    }

    /** The value when set in the environment or as a system property; null when the default applies. */
    private static String setValue(ProviderParameter p, String env) {
        String prop = p.provider().equals("core")
                ? (p.name().equals("provider") ? "jfabric.provider" : "jfabric.log.level") : p.propertyName();
        String v = System.getProperty(prop);
        return v != null ? v : System.getenv(env);
    }

    /** fi_info's param_type names. */
    static String typeName(String type) {
        return switch (type == null ? "" : type.toLowerCase(Locale.ROOT)) {
            case "string" -> "String";
            case "int", "integer", "long" -> "Integer";
            case "size_t" -> "size_t";
            case "bool", "boolean" -> "Boolean (0/1, on/off, true/false, yes/no)";
            default -> "Unknown";
        };
    }
}
