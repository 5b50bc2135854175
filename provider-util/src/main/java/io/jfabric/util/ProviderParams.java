package io.jfabric.util;

import io.jfabric.Errno;
import io.jfabric.FabricException;
import io.jfabric.spi.ProviderParameter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * A provider's tunables, libfabric's {@code fi_param_define} / {@code fi_param_get_*}: each one has a
 * type, a default and help text, and is read from {@code -Djfabric.<prov>.<name>} or
 * {@code FI_<PROV>_<NAME>} (see {@link ProviderParameter#value()}). Declare them once, in a static
 * field of the provider, and return {@link #parameters()} from {@code FabricProvider.parameters()}.
 *
 * <pre>{@code
 * static final ProviderParams PARAMS = new ProviderParams("tcp");
 * static final ProviderParams.LongParam MAX_INJECT = PARAMS.size("max_inject", 128, "Max inject size");
 * ... MAX_INJECT.get() ...
 * }</pre>
 *
 * A value that does not parse throws FabricException(EINVAL) naming the variable, the bad text, the
 * type expected and the default, at the moment the provider reads it (normally while opening a
 * fabric or domain), never silently falling back to the default. Values are read on every get(), so
 * tests may change a system property between opens.
 */
public final class ProviderParams {
    private final String provider;
    private final Map<String, Param<?>> params = new LinkedHashMap<>();

    /** @param provider the provider name as in FabricProvider.name() ("tcp", "ofi_rxm") */
    public ProviderParams(String provider) {
        this.provider = provider;
    }

    public String provider() {
        return provider;
    }

    /** Every declared parameter, in declaration order, for FabricProvider.parameters(). */
    public synchronized List<ProviderParameter> parameters() {
        List<ProviderParameter> out = new ArrayList<>();
        for (Param<?> p : params.values()) {
            out.add(p.descriptor);
        }
        return Collections.unmodifiableList(out);
    }

    public IntParam integer(String name, int def, String help) {
        return add(new IntParam(descriptor(name, "int", Integer.toString(def), help)));
    }

    public LongParam longParam(String name, long def, String help) {
        return add(new LongParam(descriptor(name, "long", Long.toString(def), help), "long"));
    }

    /** size_t: a non-negative count of bytes or entries; accepts k/m/g suffixes (powers of 1024). */
    public LongParam size(String name, long def, String help) {
        if (def < 0) {
            throw new IllegalArgumentException("size_t default must be >= 0");
        }
        return add(new LongParam(descriptor(name, "size_t", Long.toString(def), help), "size_t"));
    }

    public BoolParam bool(String name, boolean def, String help) {
        return add(new BoolParam(descriptor(name, "bool", def ? "true" : "false", help)));
    }

    public StringParam string(String name, String def, String help) {
        return add(new StringParam(descriptor(name, "string", def, help)));
    }

    private ProviderParameter descriptor(String name, String type, String def, String help) {
        if (name == null || !name.matches("[a-z0-9_]+")) {
            throw new IllegalArgumentException("parameter name '" + name + "' must be lower case [a-z0-9_]");
        }
        return new ProviderParameter(provider, name, type, def, help);
    }

    private synchronized <P extends Param<?>> P add(P p) {
        if (params.putIfAbsent(p.descriptor.name(), p) != null) {
            throw new IllegalArgumentException("parameter " + p.descriptor.name() + " of " + provider
                    + " declared twice");
        }
        return p;
    }

    /** One declared parameter. */
    public abstract static class Param<T> {
        final ProviderParameter descriptor;

        Param(ProviderParameter descriptor) {
            this.descriptor = descriptor;
        }

        public ProviderParameter descriptor() {
            return descriptor;
        }

        /** True when the user set it (property or environment). */
        public boolean isSet() {
            return System.getProperty(descriptor.propertyName()) != null || System.getenv(descriptor.envName()) != null;
        }

        /** The raw configured text (property, then environment, then default). */
        public String text() {
            return descriptor.value();
        }

        <R> R parse(Function<String, R> parser, String expected) {
            String raw = text();
            try {
                return parser.apply(raw.trim());
            } catch (RuntimeException e) {
                String source = System.getProperty(descriptor.propertyName()) != null
                        ? "-D" + descriptor.propertyName() : descriptor.envName();
                throw new FabricException(Errno.EINVAL, source + "='" + raw + "' is not " + expected + " ("
                        + descriptor.help() + "); unset it for the default " + descriptor.defaultValue(), e);
            }
        }
    }

    /** An {@code int} parameter ({@code fi_param_get_int}). */
    public static final class IntParam extends Param<Integer> {
        IntParam(ProviderParameter d) {
            super(d);
        }

        public int get() {
            return parse(s -> (int) parseNumber(s, false, Integer.MIN_VALUE, Integer.MAX_VALUE), "an int");
        }
    }

    /** A {@code long} or {@code size_t} parameter ({@code fi_param_get_size_t}); size_t takes k/m/g. */
    public static final class LongParam extends Param<Long> {
        private final boolean size;

        LongParam(ProviderParameter d, String type) {
            super(d);
            this.size = type.equals("size_t");
        }

        public long get() {
            return size ? parse(s -> parseNumber(s, true, 0, Long.MAX_VALUE), "a size_t (a count >= 0, k/m/g allowed)")
                    : parse(s -> parseNumber(s, false, Long.MIN_VALUE, Long.MAX_VALUE), "a long");
        }
    }

    /** A {@code bool} parameter ({@code fi_param_get_bool}): 1/0, true/false, yes/no, on/off, y/n. */
    public static final class BoolParam extends Param<Boolean> {
        BoolParam(ProviderParameter d) {
            super(d);
        }

        public boolean get() {
            return parse(ProviderParams::parseBool, "a bool (1/0, true/false, yes/no, on/off, y/n)");
        }
    }

    /** A {@code string} parameter ({@code fi_param_get_str}). */
    public static final class StringParam extends Param<String> {
        StringParam(ProviderParameter d) {
            super(d);
        }

        /** The value, or null when neither set nor defaulted. */
        public String get() {
            return text();
        }
    }

    static boolean parseBool(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "1", "true", "yes", "on", "y" -> true;
            case "0", "false", "no", "off", "n" -> false;
            default -> throw new IllegalArgumentException("not a bool: " + s);
        };
    }

    static long parseNumber(String s, boolean suffixes, long min, long max) {
        long mult = 1;
        String digits = s;
        if (suffixes && !s.isEmpty()) {
            char c = Character.toLowerCase(s.charAt(s.length() - 1));
            mult = switch (c) {
                case 'k' -> 1L << 10;
                case 'm' -> 1L << 20;
                case 'g' -> 1L << 30;
                default -> 1;
            };
            if (mult != 1) {
                digits = s.substring(0, s.length() - 1).trim();
            }
        }
        long v;
        if (digits.startsWith("0x") || digits.startsWith("0X")) {
            v = Long.parseLong(digits.substring(2), 16);
        } else {
            v = Long.parseLong(digits);
        }
        v = Math.multiplyExact(v, mult);
        if (v < min || v > max) {
            throw new IllegalArgumentException(v + " out of range " + min + ".." + max);
        }
        return v;
    }
}
