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
 * A list of (case, test) pairs that are reported "not run" with a recorded reason instead of being run:
 * known-native-crashes.txt (they abort the JVM inside a native library, which would take the rest of the
 * suite down) and known-libfabric-deviations.txt (native libfabric 1.17 disagrees with its own man pages;
 * the test is right and stays as it is), and the open-issue lists (failures not yet traced or fixed, of the native
 * configurations and of verbs in the Soft-RoCE VM). Each line is tab-separated: case-id regex, Class.method regex,
 * reason.
 */
final class KnownNativeCases {
    static final KnownNativeCases CRASHES = new KnownNativeCases("known-native-crashes.txt",
            "known native crash (known-native-crashes.txt)");
    static final KnownNativeCases DEVIATIONS = new KnownNativeCases("known-libfabric-deviations.txt",
            "known libfabric 1.17 deviation");
    /** Failures of native configurations not yet traced to the bridge or to libfabric: open work, listed. */
    static final KnownNativeCases OPEN = new KnownNativeCases("known-native-open-issues.txt",
            "open issue, not yet traced to the bridge or to libfabric (known-native-open-issues.txt)");
    /** Failures of the verbs provider in the Soft-RoCE VM not yet fixed: open work, listed. */
    static final KnownNativeCases VERBS_OPEN = new KnownNativeCases("known-verbs-open-issues.txt",
            "open verbs issue, not yet fixed (known-verbs-open-issues.txt)");
    /** Every list, in the order a test is checked against them. */
    static final List<KnownNativeCases> ALL = List.of(CRASHES, DEVIATIONS, OPEN, VERBS_OPEN);

    private record Entry(Pattern caseId, Pattern test, String reason) {
    }

    private final String resource;
    /** What a listed test's "not run" says before the line's reason. */
    final String label;
    private final List<Entry> entries;

    private KnownNativeCases(String resource, String label) {
        this.resource = resource;
        this.label = label;
        this.entries = load(resource);
    }

    /**
     * The recorded reason when the case is listed for {@code test} ("Class.method"), else null. {@code display}
     * is the test's display name: the case id alone, or the case id followed by a space and the test's other
     * parameters ("libfabric:shm/FI_EP_RDM KILL peer-SENDER"); the list's pattern may match either.
     */
    String reason(String display, String test) {
        int space = display.indexOf(' ');
        String caseId = space < 0 ? display : display.substring(0, space);
        for (Entry e : entries) {
            boolean caseListed = e.caseId().matcher(caseId).matches() || e.caseId().matcher(display).matches();
            if (caseListed && e.test().matcher(test).matches()) {
                return e.reason();
            }
        }
        return null;
    }

    String resource() {
        return resource;
    }

    private static List<Entry> load(String resource) {
        List<Entry> out = new ArrayList<>();
        try (InputStream in = KnownNativeCases.class.getResourceAsStream("/" + resource)) {
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
                    throw new IllegalStateException(resource + ": need 3 tab-separated fields: " + line);
                }
                out.add(new Entry(Pattern.compile(f[0]), Pattern.compile(f[1]), f[2]));
            }
        } catch (IOException e) {
            throw new IllegalStateException("reading " + resource, e);
        }
        return out;
    }
}
