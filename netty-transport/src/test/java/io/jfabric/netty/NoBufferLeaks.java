package io.jfabric.netty;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.List;

/**
 * Fails a test class whose buffers were collected unreleased (ByteBufs from Netty's allocators and the transport's
 * lent receive slots alike), once the class is done and its channels closed. Without it Netty's leak detector only
 * logs, and only if a collection happens to run before the JVM exits. Registered for every test class of the module
 * (META-INF/services, with extension autodetection on).
 */
public final class NoBufferLeaks implements AfterAllCallback {
    @Override
    public void afterAll(ExtensionContext context) {
        check(context.getRequiredTestClass().getSimpleName());
    }

    /** Throws an AssertionError naming {@code after} if any buffer has been collected unreleased since the last check. */
    static void check(String after) {
        if (!RecordingLeakDetector.class.getName().equals(System.getProperty(RecordingLeakDetector.PROPERTY))) {
            throw new IllegalStateException("Netty's leak detector is not the recording one: run the tests with"
                    + " -D" + RecordingLeakDetector.PROPERTY + "=" + RecordingLeakDetector.class.getName());
        }
        RecordingLeakDetector.collect();
        List<String> leaks = RecordingLeakDetector.takeReports();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " buffer(s) collected unreleased after " + after + "; the first:\n"
                    + leaks.getFirst());
        }
    }
}
