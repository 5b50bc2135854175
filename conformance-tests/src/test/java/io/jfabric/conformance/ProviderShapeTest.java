package io.jfabric.conformance;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every provider has the same rooms, named the same way (DESIGN.md, "One provider shape"), hand-written
 * classes stay small, and generated FFM code lives apart from hand-written code. Reads the sources of the
 * reactor this module sits in.
 */
@Timeout(60)
class ProviderShapeTest {
    /** About where a class starts to hold two rooms. */
    static final int MAX_LINES = 800;
    static final Set<String> SUBPACKAGES = Set.of("wire", "ffi");

    record Shape(String module, String pkg, String prefix, List<String> rooms) {
        Path mainRoot() {
            return root().resolve(module).resolve("src/main/java");
        }

        Path generatedRoot() {
            return root().resolve(module).resolve("src/generated/java");
        }

        Path pkgDir() {
            return mainRoot().resolve("io/jfabric/provider").resolve(pkg);
        }
    }

    static final List<Shape> SHAPES = List.of(
            new Shape("provider-tcp", "tcp", "Tcp", List.of("Provider", "Fabric", "Domain", "Endpoint",
                    "PassiveEndpoint", "Msg", "Tagged", "Rma", "Cq", "Eq", "Counter", "Progress", "Cm")),
            new Shape("provider-shm", "shm", "Shm", List.of("Provider", "Fabric", "Domain", "Endpoint", "Msg",
                    "Tagged", "Rma", "Cq", "Av", "Counter", "Progress")),
            new Shape("provider-rxm", "rxm", "Rxm", List.of("Provider", "Fabric", "Domain", "Endpoint", "Msg",
                    "Tagged", "Rma", "Cq", "Av", "Counter", "Progress", "Cm")),
            new Shape("provider-verbs", "verbs", "Verbs", List.of("Provider", "Fabric", "Domain", "Endpoint",
                    "PassiveEndpoint", "Msg", "Rma", "Cq", "Eq", "Cm")),
            new Shape("provider-libfabric", "libfabric", "Libfabric", List.of("Provider", "Fabric", "Domain",
                    "Endpoint", "PassiveEndpoint", "Msg", "Tagged", "Rma", "Cq", "Eq", "Av", "Counter")));

    static Path root() {
        Path here = Path.of("").toAbsolutePath();
        return Files.isDirectory(here.resolve("conformance-tests")) ? here : here.getParent();
    }

    @TestFactory
    Stream<DynamicTest> everyProviderHasItsRooms() {
        return SHAPES.stream().map(s -> DynamicTest.dynamicTest(s.module(), () -> {
            List<String> missing = new ArrayList<>();
            for (String room : s.rooms()) {
                if (!Files.isRegularFile(s.pkgDir().resolve(s.prefix() + room + ".java"))) {
                    missing.add(s.prefix() + room);
                }
            }
            assertEquals(List.of(), missing, "rooms missing from " + s.pkgDir());
        }));
    }

    @TestFactory
    Stream<DynamicTest> providerPackagesHoldOnlyWireAndFfiSubpackages() {
        return SHAPES.stream().map(s -> DynamicTest.dynamicTest(s.module(), () -> {
            Set<String> subs = new TreeSet<>();
            try (Stream<Path> children = Files.list(s.pkgDir())) {
                children.filter(Files::isDirectory).forEach(d -> subs.add(d.getFileName().toString()));
            }
            subs.removeAll(SUBPACKAGES);
            assertEquals(Set.of(), subs, "subpackages of " + s.pkgDir() + " other than wire/ and ffi/");
        }));
    }

    @TestFactory
    Stream<DynamicTest> handWrittenClassesStaySmall() {
        return handWrittenModules().map(m -> DynamicTest.dynamicTest(m.getFileName().toString(), () -> {
            List<String> tooLong = new ArrayList<>();
            for (Path f : javaFiles(m.resolve("src/main/java"))) {
                long lines = Files.readAllLines(f).size();
                if (lines > MAX_LINES) {
                    tooLong.add(root().relativize(f) + " (" + lines + " lines)");
                }
            }
            assertEquals(List.of(), tooLong, "hand-written classes over " + MAX_LINES + " lines");
        }));
    }

    @TestFactory
    Stream<DynamicTest> generatedCodeLivesApartAndSaysSo() {
        return SHAPES.stream().map(s -> DynamicTest.dynamicTest(s.module(), () -> {
            List<String> misplaced = new ArrayList<>();
            for (Path f : javaFiles(s.mainRoot())) {
                if (firstLine(f).startsWith("// Generated")) {
                    misplaced.add(root().relativize(f).toString());
                }
            }
            assertEquals(List.of(), misplaced, "generated files among hand-written sources");
            List<String> unmarked = new ArrayList<>();
            for (Path f : javaFiles(s.generatedRoot())) {
                if (!firstLine(f).startsWith("// Generated by scripts/regenerate-bindings")) {
                    unmarked.add(root().relativize(f).toString());
                }
            }
            assertEquals(List.of(), unmarked, "files in " + s.generatedRoot() + " without the generated mark");
        }));
    }

    @org.junit.jupiter.api.Test
    void theShapesCoverEveryProviderModule() throws IOException {
        Set<String> modules = new TreeSet<>();
        try (Stream<Path> children = Files.list(root())) {
            children.filter(d -> d.getFileName().toString().startsWith("provider-")
                            && !d.getFileName().toString().equals("provider-util")
                            && Files.isRegularFile(d.resolve("pom.xml")))
                    .forEach(d -> modules.add(d.getFileName().toString()));
        }
        Set<String> covered = new TreeSet<>();
        SHAPES.forEach(s -> covered.add(s.module()));
        assertEquals(modules, covered, "every provider module has a shape here");
        assertTrue(modules.size() >= 5, "found the reactor's provider modules: " + modules);
    }

    private static Stream<Path> handWrittenModules() {
        try {
            return Files.list(root()).filter(d -> Files.isDirectory(d.resolve("src/main/java"))).sorted().toList()
                    .stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Path> javaFiles(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
    }

    private static String firstLine(Path f) throws IOException {
        try (Stream<String> lines = Files.lines(f)) {
            return lines.findFirst().orElse("");
        }
    }
}
