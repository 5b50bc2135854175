package io.jfabric.bench;

/**
 * The main class of {@code bench/target/benchmarks.jar}: JMH's own command line ({@code -l} lists the
 * benchmarks, {@code -h} shows the options), over the benchmarks in {@code io.jfabric.bench.jmh}. It exists
 * because a modular jar's main class must live in the module.
 */
public final class Benchmarks {
    private Benchmarks() {
    }

    public static void main(String[] args) throws Exception {
        org.openjdk.jmh.Main.main(args);
    }
}
