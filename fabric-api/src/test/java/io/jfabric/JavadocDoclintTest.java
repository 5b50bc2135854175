package io.jfabric;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.spi.ToolProvider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps the public API completely documented: the JDK's javadoc tool over the module's sources with
 * every doclint group and warnings as errors, the same check {@code mvn -pl fabric-api javadoc:javadoc}
 * makes. It runs in-process in the unit tests (a few seconds, no plugin download), so {@code ./jfabric
 * test}, which stops at the test phase, catches an undocumented member too.
 */
class JavadocDoclintTest {

    @Test
    @Timeout(120)
    void exportedPackagesPassDoclintAllWithoutAWarning(@TempDir Path out) {
        Path sources = Path.of("src", "main", "java").toAbsolutePath();
        assertTrue(Files.isRegularFile(sources.resolve("module-info.java")),
                "run from fabric-api's directory (surefire does); no module-info.java under " + sources);
        // java.util.spi.ToolProvider, not javax.tools: the tests are patched into module io.jfabric,
        // which reads java.base only
        ToolProvider javadoc = ToolProvider.findFirst("javadoc").orElse(null);
        assertNotNull(javadoc, "the tests need a JDK with the javadoc tool, not a JRE");
        StringWriter log = new StringWriter();
        PrintWriter logWriter = new PrintWriter(log);
        int rc = javadoc.run(logWriter, logWriter,
                "-quiet", "-Xdoclint:all", "-Werror", "-Xmaxwarns", "10000",
                // doclint reads every comment either way; the pages it would not need are skipped
                "-notree", "-noindex", "-nohelp", "-nonavbar", "-nodeprecatedlist",
                "-d", out.toString(),
                "--module-source-path", "io.jfabric=" + sources,
                "--module", "io.jfabric");
        logWriter.flush();
        String report = log.toString();
        assertEquals(0, rc, "javadoc -Xdoclint:all -Werror reports:\n" + report);
        assertTrue(Files.isRegularFile(out.resolve("io.jfabric").resolve("io").resolve("jfabric")
                .resolve("Endpoint.html")), "javadoc wrote no page for Endpoint:\n" + report);
    }
}
