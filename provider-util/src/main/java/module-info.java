/**
 * Shared provider machinery, jfabric's counterpart of libfabric's {@code prov/util}: the base endpoint
 * with the data-path entry points, endpoint bindings and completion reporting, completion and event
 * queues, counters, the MR key map, the tag matcher, sockaddr handling, provider parameters, logging and the JFR events.
 * Providers build on it instead of copying it.
 */
module io.jfabric.util {
    requires transitive io.jfabric;
    requires java.logging;
    requires transitive jdk.jfr; // the events in io.jfabric.util.jfr extend jdk.jfr.Event

    exports io.jfabric.util;
    exports io.jfabric.util.jfr;

    provides io.jfabric.spi.WaitSupport with io.jfabric.util.UtilWaitSupport;
}
