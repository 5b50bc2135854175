package io.jfabric.cli;

import io.jfabric.FabricException;
import io.jfabric.Threading;

/**
 * The {@code --threading} option of jfabric's benchmark tools, which fabtests' and fi_pingpong's lack: they leave the
 * hints' threading level unset, which every provider answers with FI_THREAD_SAFE.
 */
public final class ThreadingArg {
    public static final String DESCRIPTION = "threading level in the hints: domain, safe, completion, ... "
            + "(jfabric's addition; unset, as in libfabric's tools, every provider answers FI_THREAD_SAFE)";

    private ThreadingArg() {
    }

    /**
     * @param text the option's value, or null
     * @return the level, or null when {@code text} is null
     * @throws IllegalArgumentException for a name that is no level
     */
    public static Threading parse(String text) {
        if (text == null) {
            return null;
        }
        try {
            return Threading.parse(text);
        } catch (FabricException e) {
            throw new IllegalArgumentException("Unknown threading level : " + text);
        }
    }
}
