package io.jfabric.provider.libfabric.ffi;

import io.jfabric.provider.libfabric.ffi.generated.fi_ops_cq;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_msg;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_rma;
import io.jfabric.provider.libfabric.ffi.generated.fi_ops_tagged;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DataCalls passes every argument of the data calls as a 64-bit integer. That is the C calling
 * convention's own treatment only if each parameter is a pointer or a 64-bit integer: a 32-bit int
 * or a double would travel differently. This checks it on the generated descriptors (which
 * ProbeLayoutTest checks against the installed headers) of every ops-table member the libfabric provider routes
 * through DataCalls.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DataCallsTest {

    /** The ops tables whose every member the endpoint calls through DataCalls. */
    private static final Class<?>[] WHOLE_TABLES = {fi_ops_msg.class, fi_ops_tagged.class, fi_ops_rma.class};

    private static List<FunctionDescriptor> routed() throws ReflectiveOperationException {
        List<FunctionDescriptor> out = new ArrayList<>();
        for (Class<?> table : WHOLE_TABLES) {
            for (Class<?> member : table.getDeclaredClasses()) {
                out.add((FunctionDescriptor) member.getMethod("descriptor").invoke(null));
            }
        }
        out.add(fi_ops_cq.read.descriptor());
        out.add(fi_ops_cq.readfrom.descriptor());
        return out;
    }

    private static boolean word(MemoryLayout l) {
        return l instanceof AddressLayout || l instanceof ValueLayout.OfLong;
    }

    @Test
    void everyRoutedSignatureIsMadeOfWords() throws ReflectiveOperationException {
        List<FunctionDescriptor> all = routed();
        assertTrue(all.size() >= 29, "the msg, tagged and rma tables and the two CQ reads: " + all.size());
        for (FunctionDescriptor d : all) {
            assertTrue(d.returnLayout().map(DataCallsTest::word).orElse(false), "returns a word: " + d);
            for (MemoryLayout arg : d.argumentLayouts()) {
                assertTrue(word(arg), "every argument is a word: " + d);
                assertEquals(8, arg.byteSize(), "a 64-bit word: " + d);
            }
            int arity = d.argumentLayouts().size();
            assertTrue(arity >= 3 && arity <= 9, "DataCalls has a handle for " + arity + " words: " + d);
            assertEquals(arity, DataCalls.words(arity).argumentLayouts().size());
        }
    }
}
