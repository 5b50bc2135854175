package io.jfabric.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The list in known-native-crashes.txt: (case, test) pairs that abort the JVM inside a native library, so
 * they are reported "not run" with the recorded reason rather than taking the rest of the suite down.
 */
final class KnownCrashes {
    private record Entry(Pattern caseId, Pattern test, String reason) {
    }

    private static final List<Entry> ENTRIES = load();

    private KnownCrashes() {
    }

    /** The recorded reason when {@code caseId} crashes in {@code test} ("Class.method"), else null. */
    static String reason(String caseId, String test) {
        for (Entry e : ENTRIES) {
            if (e.caseId().matcher(caseId).matches() && e.test().matcher(test).matches()) {
                return e.reason();
            }
        }
        return null;
    }

    private static List<Entry> load() {
        List<Entry> out = new ArrayList<>();
        try (InputStream in = KnownCrashes.class.getResourceAsStream("/known-native-crashes.txt")) {
            if (in == null) {
                return out;
            }
            BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            String line;
            while ((line = r.readLine()) != null) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", 3);
                if (f.length != 3) {
                    throw new IllegalStateException("known-native-crashes.txt: need 3 tab-separated fields: " + line);
                }
                out.add(new Entry(Pattern.compile(f[0]), Pattern.compile(f[1]), f[2]));
            }
        } catch (IOException e) {
            throw new IllegalStateException("reading known-native-crashes.txt", e);
        }
        return out;
    }
}
