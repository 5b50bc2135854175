package io.jfabric.conformance.fault;

import java.io.IOException;
import java.util.List;

/** A link between this host's address and a peer's that a test can cut and restore ({@link HostCutOffTest}). */
abstract sealed class CutOffLink implements AutoCloseable permits NetNs, RoceLinkCut {
    /** The address this process binds to. */
    final String hostAddr;
    /** The address the peer binds to. */
    final String peerAddr;

    CutOffLink(String hostAddr, String peerAddr) {
        this.hostAddr = hostAddr;
        this.peerAddr = peerAddr;
    }

    /** The command prefix a peer's process starts with: into its namespace, or nothing. */
    abstract List<String> launcher();

    /** Cuts the link ({@code false}) or restores it. */
    abstract void link(boolean up) throws IOException;

    @Override
    public abstract void close();
}
