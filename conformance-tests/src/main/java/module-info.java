/**
 * jfabric's conformance suite. The suite itself lives in the test sources (package
 * {@code io.jfabric.conformance}) and runs on the class path against every provider of the reactor; this
 * module ships no code of its own.
 */
module io.jfabric.conformance {
    requires io.jfabric;
    requires java.management; // the fault tests measure thread CPU time and heap use
    requires jdk.jfr; // the virtual-thread wait test counts jdk.VirtualThreadPinned events
    requires jdk.management; // SharedRxTest counts the bytes its thread allocates
}
