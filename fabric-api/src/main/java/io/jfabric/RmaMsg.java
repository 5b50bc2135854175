package io.jfabric;

/** Mirrors {@code struct fi_msg_rma}: local iovs plus remote {@link RmaIov}s. */
public class RmaMsg extends Msg {
    public RmaIov[] rmaIov;
    public int rmaIovCount;

    public RmaMsg() {
        this(4);
    }

    public RmaMsg(int maxIov) {
        super(maxIov);
        rmaIov = new RmaIov[maxIov];
        for (int i = 0; i < maxIov; i++) {
            rmaIov[i] = new RmaIov();
        }
    }
}
