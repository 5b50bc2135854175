package io.jfabric.conformance;

import io.jfabric.Fabrics;
import io.jfabric.spi.ProviderStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The suite's own sanity: the providers the reactor builds are on the test class path and offer infos, so
 * an empty parameter set can only mean "no provider yet", never "provider forgotten".
 */
@Timeout(30)
class DiscoveryTest {
    /** Reactor module directory → provider name it must register, and whether it must be usable everywhere. */
    private static final Map<String, Expected> REACTOR_PROVIDERS = Map.of(
            "provider-tcp", new Expected("tcp", true),
            "provider-shm", new Expected("shm", true),
            "provider-rxm", new Expected("ofi_rxm", true),
            "provider-libfabric", new Expected("libfabric", false),
            "provider-verbs", new Expected("verbs", false));

    private record Expected(String name, boolean pureJava) {
    }

    @Test
    void everyReactorProviderIsFoundAndPureJavaOnesAreUsable() throws IOException {
        Path root = Path.of(System.getProperty("user.dir")).getParent();
        List<ProviderStatus> found = Fabrics.providers();
        System.out.println("providers found: " + found);
        System.out.println("cases: " + FabricCases.cases());
        List<String> problems = new ArrayList<>();
        for (var e : REACTOR_PROVIDERS.entrySet()) {
            if (!Files.isDirectory(root.resolve(e.getKey()))) {
                continue;
            }
            Expected x = e.getValue();
            var status = found.stream().filter(s -> s.name().equals(x.name())).findFirst();
            if (status.isEmpty()) {
                problems.add(e.getKey() + " is in the reactor but no provider '" + x.name()
                        + "' is on the test class path: add it as a test dependency of conformance-tests");
            } else if (x.pureJava() && !status.get().available()) {
                problems.add("provider '" + x.name() + "' is unavailable: " + status.get().unavailableReason());
            }
        }
        if (!problems.isEmpty()) {
            fail(String.join("\n", problems));
        }
    }

    @Test
    void everyUsableCoreProviderContributesACase() {
        List<String> withCases = FabricCases.cases().stream().map(c -> c.provider().split(";")[0])
                .distinct().toList();
        for (ProviderStatus s : Fabrics.providers()) {
            if (s.available() && !s.utility() && !s.name().equals("libfabric") && !s.name().equals("verbs")
                    && !hiddenByProviderFilter(s.name())) {
                assertTrue(withCases.contains(s.name()), "usable provider " + s.name()
                        + " returned no info for null hints nor for any endpoint type; cases: " + withCases);
            }
        }
    }

    @Test
    void utilityProvidersLayerOverACore() {
        for (ProviderStatus s : Fabrics.providers()) {
            if (s.available() && s.utility()) {
                boolean layered = FabricCases.cases().stream().anyMatch(c -> c.provider().contains(";" + s.name()));
                assertTrue(layered, "utility provider " + s.name() + " is usable but no layered info names it; cases: "
                        + FabricCases.cases());
            }
        }
    }

    /**
     * Whether a positive FI_PROVIDER / -Djfabric.provider list leaves core provider {@code name} out (a run
     * restricted to one provider, as in the Soft-RoCE VM); negative ("^tcp") lists are not read here.
     */
    static boolean hiddenByProviderFilter(String name) {
        String filter = System.getProperty("jfabric.provider", System.getenv("FI_PROVIDER"));
        if (filter == null || filter.isBlank() || filter.startsWith("^")) {
            return false;
        }
        for (String entry : filter.split(",")) {
            for (String part : entry.trim().split(";")) {
                if (part.trim().equalsIgnoreCase(name)) {
                    return false;
                }
            }
        }
        return true;
    }

    @Test
    void servicesFilesNameLoadableClasses() throws IOException {
        List<URL> files = Collections.list(getClass().getClassLoader()
                .getResources("META-INF/services/io.jfabric.spi.FabricProvider"));
        for (URL u : files) {
            String text;
            try (InputStream in = u.openStream()) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            List<String> classes = text.lines().map(l -> l.replaceAll("#.*", "").trim()).filter(l -> !l.isEmpty())
                    .collect(Collectors.toList());
            assertFalse(classes.isEmpty(), u + " lists no provider class");
            for (String cls : classes) {
                try {
                    Class.forName(cls, false, getClass().getClassLoader());
                } catch (ClassNotFoundException ex) {
                    fail(u + " names " + cls + ", which is not on the class path");
                }
            }
        }
        System.out.println("services files: " + files);
    }
}
