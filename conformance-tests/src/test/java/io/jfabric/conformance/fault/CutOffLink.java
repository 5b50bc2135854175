package io.jfabric.conformance.fault;

import java.io.IOException;
import java.util.List;

/** A link between this host's address and a peer's that a test can cut and restore ({@link HostCutOffTest}). */
sealed interface CutOffLink extends AutoCloseable permits NetNs, RoceLinkCut {
    /** The address this process binds to. */
    String hostAddr();

    /** The address the peer binds to. */
    String peerAddr();

    /** The command prefix a peer's process starts with: into its namespace, or nothing. */
    List<String> launcher();

    /** Cuts the link ({@code false}) or restores it. */
    void link(boolean up) throws IOException;

    @Override
    void close();
}
