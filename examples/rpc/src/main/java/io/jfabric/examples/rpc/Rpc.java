package io.jfabric.examples.rpc;

/**
 * One registered RPC: its id (the tag carries it), codecs for input and output, and on a server its
 * handler. Returned by {@link RpcEngine#register}, as Mercury's HG_Register returns an hg_id_t.
 */
public final class Rpc<I, O> {
    final int id;
    final String name;
    final Codec<I> input;
    final Codec<O> output;
    final RpcHandler<I, O> handler;

    Rpc(int id, String name, Codec<I> input, Codec<O> output, RpcHandler<I, O> handler) {
        this.id = id;
        this.name = name;
        this.input = input;
        this.output = output;
        this.handler = handler;
    }

    public int id() {
        return id;
    }

    public String name() {
        return name;
    }

    @Override
    public String toString() {
        return "Rpc[" + id + " " + name + "]";
    }
}
