/**
 * The jfabric API with every provider: an application that {@code requires io.jfabric.all} reads the API, and
 * the providers are resolved with it, so discovery finds them all.
 */
module io.jfabric.all {
    requires transitive io.jfabric;
    requires io.jfabric.provider.tcp;
    requires io.jfabric.provider.shm;
    requires io.jfabric.provider.rxm;
    requires io.jfabric.provider.verbs;
    requires io.jfabric.provider.libfabric;
}
