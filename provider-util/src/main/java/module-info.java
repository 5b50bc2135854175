/**
 * Shared provider machinery, jfabric's counterpart of libfabric's {@code prov/util}: completion and
 * event queues, address vectors, the MR key map, tag matching, counters, the progress engine, object
 * pools, provider parameters and logging. Providers build on it instead of copying it.
 */
module io.jfabric.util {
    requires transitive io.jfabric;
    // transitive: ProgressEngine takes an Agrona IdleStrategy
    requires transitive org.agrona;
    requires java.logging;

    exports io.jfabric.util;
}
