package io.jfabric.examples.rpc;

import java.util.HashMap;
import java.util.Map;

/** The few "-p NAME --flag value --switch" options of the example programs; no library needed for so little. */
final class Args {
    private final Map<String, String> values = new HashMap<>();

    Args(String[] argv, String usage) {
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (a.equals("-h") || a.equals("--help")) {
                System.out.println(usage);
                System.exit(0);
            }
            if (!a.startsWith("-")) {
                throw new IllegalArgumentException("unexpected argument '" + a + "'\n" + usage);
            }
            if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) {
                values.put(a, argv[++i]);
            } else {
                values.put(a, "true");
            }
        }
    }

    String get(String name, String alias, String def) {
        String v = values.get(name);
        if (v == null && alias != null) {
            v = values.get(alias);
        }
        return v == null ? def : v;
    }

    String require(String name, String alias, String usage) {
        String v = get(name, alias, null);
        if (v == null) {
            throw new IllegalArgumentException("missing " + name + "\n" + usage);
        }
        return v;
    }

    long getLong(String name, long def) {
        String v = get(name, null, null);
        if (v == null) {
            return def;
        }
        String t = v.trim().toUpperCase();
        long mul = 1;
        if (t.endsWith("K") || t.endsWith("KIB")) {
            mul = 1024;
        } else if (t.endsWith("M") || t.endsWith("MIB")) {
            mul = 1024 * 1024;
        }
        return Long.parseLong(t.replaceAll("[A-Z]+$", "")) * mul;
    }

    boolean has(String name) {
        return values.containsKey(name);
    }
}
