package io.jfabric.dist;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a middleware author does with the README's "Use jfabric in your project": install the artifacts, write a
 * pom that imports the BOM and depends on jfabric-all, and run the README's example, on the class path and on the
 * module path, each with the exact --enable-native-access value the README gives and with every other native
 * access denied. The artifacts go to a scratch local repository, so the user's is never touched.
 */
@Timeout(value = 900, unit = TimeUnit.SECONDS)
class ConsumerProjectTest {
    static Path root;
    static Path repo;
    static Path work;
    static String readme;

    @BeforeAll
    @Timeout(value = 900, unit = TimeUnit.SECONDS) // a class-level timeout does not cover lifecycle methods
    static void installIntoAScratchRepository() throws Exception {
        root = Path.of(System.getProperty("user.dir")).getParent();
        readme = Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8);
        work = Files.createTempDirectory("jfabric-consumer");
        repo = work.resolve("repository");
        Path userRepo = Path.of(System.getProperty("user.home"), ".m2", "repository");
        if (Files.isDirectory(userRepo)) {
            // hard links: the scratch repository starts with what is already downloaded, at no copying cost
            run(work, List.of("cp", "-al", userRepo.toString(), repo.toString()), 120);
        }
        String out = run(root, mvn("-DskipTests", "install", "-pl", "jfabric-bom,jfabric-all", "-am"), 600);
        assertTrue(Files.isRegularFile(repo.resolve("io/jfabric/jfabric-all/0.1.0-SNAPSHOT/jfabric-all-0.1.0-SNAPSHOT.jar")),
                "jfabric-all was installed:\n" + out);
    }

    @Test
    void theReadmeNamesTheCoordinatesTheModulesAndTheFlags() {
        assertTrue(readme.contains("<artifactId>jfabric-bom</artifactId>"), "README shows the BOM");
        assertTrue(readme.contains("<artifactId>jfabric-all</artifactId>"), "README shows jfabric-all");
        assertTrue(readme.contains("implementation(platform(\"io.jfabric:jfabric-bom:"), "README shows Gradle");
        assertTrue(readme.contains("./jfabric install"), "README shows the install command");
        assertFalse(classPathFlag().isEmpty());
        assertTrue(modulePathFlag().contains("io.jfabric.provider.shm"), modulePathFlag());
    }

    @Test
    void theReadmeExampleRunsOnTheClassPath() throws Exception {
        Path project = consumer("classpath", false);
        List<String> cmd = new ArrayList<>(List.of(java(), classPathFlag(), "--illegal-native-access=deny",
                "-Djfabric.provider=tcp;ofi_rxm", "-cp", "target/classes:target/dependency/*", "Hello"));
        String out = run(project, cmd, 120);
        assertTrue(out.contains("received: hello, fabric"), out);
        assertFalse(out.contains("WARNING"), "no warnings with the README's flag:\n" + out);
    }

    @Test
    void theReadmeExampleRunsOnTheModulePath() throws Exception {
        Path project = consumer("modulepath", true);
        List<String> cmd = new ArrayList<>(List.of(java(), modulePathFlag(), "--illegal-native-access=deny",
                "-Djfabric.provider=tcp;ofi_rxm", "-p", "target/classes:target/dependency", "-m", "hello/hello.Hello"));
        String out = run(project, cmd, 120);
        assertTrue(out.contains("received: hello, fabric"), out);
        assertFalse(out.contains("WARNING"), "no warnings with the README's flag:\n" + out);
    }

    /**
     * An application that lets only tcp's module call native code: tcp;ofi_rxm still carries the example, and shm,
     * verbs and the bridge, which the filter excludes, are never asked to make a native call (before, discovery
     * probed every provider at start-up).
     */
    @Test
    void onlyTcpMayCallNativeCodeAndTheExampleStillRuns() throws Exception {
        Path project = consumer("modulepath", true);
        List<String> cmd = new ArrayList<>(List.of(java(), "--enable-native-access=io.jfabric.provider.tcp",
                "--illegal-native-access=deny", "-Djfabric.provider=tcp;ofi_rxm", "-p",
                "target/classes:target/dependency", "-m", "hello/hello.Hello"));
        String out = run(project, cmd, 120);
        assertTrue(out.contains("received: hello, fabric"), out);
        assertFalse(out.contains("WARNING") || out.contains("IllegalCallerException"), out);
    }

    /** A project of its own, as a user writes it from the README: the BOM imported, jfabric-all, the example. */
    private static Path consumer(String name, boolean modular) throws Exception {
        Path dir = work.resolve(name);
        if (Files.isDirectory(dir.resolve("target/dependency"))) {
            return dir; // built by an earlier test of this run
        }
        Path src = dir.resolve("src/main/java");
        String example = example();
        if (modular) {
            Files.createDirectories(src.resolve("hello"));
            Files.writeString(src.resolve("hello/Hello.java"), "package hello;\n" + example);
            Files.writeString(src.resolve("module-info.java"), "module hello {\n    requires io.jfabric.all;\n}\n");
        } else {
            Files.createDirectories(src);
            Files.writeString(src.resolve("Hello.java"), example);
        }
        Files.writeString(dir.resolve("pom.xml"), pom());
        run(dir, mvn("package", "dependency:copy-dependencies"), 300);
        return dir;
    }

    private static String pom() {
        String deps = fenced("xml", "<dependencyManagement>");
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                  <modelVersion>4.0.0</modelVersion>
                  <groupId>example</groupId>
                  <artifactId>hello</artifactId>
                  <version>1</version>
                  <properties>
                    <maven.compiler.release>25</maven.compiler.release>
                    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
                  </properties>
                """ + deps + """
                  <build>
                    <plugins>
                      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
                      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
                      <plugin><artifactId>maven-jar-plugin</artifactId><version>3.4.2</version></plugin>
                      <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.5.3</version></plugin>
                      <plugin><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin>
                    </plugins>
                  </build>
                </project>
                """;
    }

    /** The README's first fenced block of {@code lang} that contains {@code marker}, as written. */
    private static String fenced(String lang, String marker) {
        Matcher m = Pattern.compile("```" + lang + "\\n(.*?)```", Pattern.DOTALL).matcher(readme);
        while (m.find()) {
            if (m.group(1).contains(marker)) {
                return m.group(1);
            }
        }
        throw new AssertionError("README.md has no ```" + lang + " block with " + marker);
    }

    private static String example() {
        String code = fenced("java", "public class Hello");
        assertTrue(code.contains("received: "), "the example prints what it received");
        return code;
    }

    private static String classPathFlag() {
        return flag("class path");
    }

    private static String modulePathFlag() {
        return flag("module path");
    }

    /** The README's table row for {@code path}: its --enable-native-access value, in backquotes. */
    private static String flag(String path) {
        Matcher m = Pattern.compile("\\| " + path + " \\| `(--enable-native-access=[^`]+)`").matcher(readme);
        assertTrue(m.find(), "README.md gives the --enable-native-access value for the " + path);
        return m.group(1);
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static List<String> mvn(String... args) {
        List<String> cmd = new ArrayList<>(List.of("mvn", "-B", "-q", "-Dstyle.color=never", "-Dmaven.repo.local=" + repo));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static String run(Path dir, List<String> cmd, int seconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true);
        // the JDK this test runs on builds the consumer too
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("MAVEN_OPTS", "--sun-misc-unsafe-memory-access=allow");
        Path log = Files.createTempFile(work, "run", ".log");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        boolean done = p.waitFor(seconds, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly().waitFor();
        }
        String out = Files.readString(log);
        assertTrue(done, String.join(" ", cmd) + " did not finish in " + seconds + " s:\n" + out);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + " failed:\n" + out);
        return out;
    }
}
