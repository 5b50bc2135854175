package io.jfabric.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Loads the seed corpus from {@code src/test/resources/corpus/<dir>/}: one frame per {@code .hex} file,
 * bytes written as whitespace-separated hex so that a capture can be pasted and reviewed. The file list
 * is {@code corpus/<dir>/INDEX} (class-path resources cannot be listed portably).
 */
final class Corpus {
    private Corpus() {
    }

    static Map<String, byte[]> load(String dir) {
        Map<String, byte[]> out = loadMaybeEmpty(dir);
        if (out.isEmpty()) {
            throw new IllegalStateException("empty corpus " + dir);
        }
        return out;
    }

    /** Like {@link #load} but an empty directory (a regression list with no entries yet) is fine. */
    static Map<String, byte[]> loadMaybeEmpty(String dir) {
        Map<String, byte[]> out = new LinkedHashMap<>();
        for (String name : lines("corpus/" + dir + "/INDEX")) {
            out.put(name, parse(String.join(" ", lines("corpus/" + dir + "/" + name))));
        }
        return out;
    }

    static byte[] parse(String hex) {
        String[] parts = hex.trim().split("\\s+");
        if (parts.length == 1 && parts[0].isEmpty()) {
            return new byte[0];
        }
        byte[] b = new byte[parts.length];
        for (int i = 0; i < parts.length; i++) {
            b[i] = (byte) Integer.parseInt(parts[i], 16);
        }
        return b;
    }

    private static List<String> lines(String resource) {
        try (InputStream in = Corpus.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII).lines()
                    .map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
