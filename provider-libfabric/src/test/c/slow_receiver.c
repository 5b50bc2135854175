// How much a provider buffers for a receiver that does not keep up. jfabric's rule (SlowReceiverTest): at most
// 12 MiB of messages may be completed at the sender and not yet received. fi_rxm(7), fi_rxd(7) and fi_msg(3) set
// no bound on a provider's buffering of unexpected messages, so DEVIATION here means "differs from jfabric's
// stricter rule". Sends 2000 messages of 16 KiB with up to 256 in flight; the receiver takes one message at a time
// every 100 us (4 receives posted); reports the largest number of bytes completed at the sender but not received.
#include "repro.h"

#define COUNT 2000
#define SIZE (16 * 1024)

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], FI_EP_RDM, FI_MSG, &a, &b);
    alarm(30);
    static char tx[SIZE], rx[4][SIZE];
    int next = 0, sent = 0, received = 0, inflight = 0; long max_buffered = 0, last_rx = 0;
    for (int i = 0; i < 4; i++) POST(fi_recv(b.ep, rx[i], SIZE, NULL, FI_ADDR_UNSPEC, rx[i]));
    struct fi_cq_tagged_entry e;
    long end = now_ms() + 25000;
    while (received < COUNT && now_ms() < end) {
        while (next < COUNT && inflight < 256 && fi_send(a.ep, tx, SIZE, NULL, a.peer, NULL) == 0) { next++; inflight++; }
        while (fi_cq_read(a.tx, &e, 1) == 1) { sent++; inflight--; }
        struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
        long us = t.tv_sec * 1000000L + t.tv_nsec / 1000;
        if (us - last_rx >= 100 && fi_cq_read(b.rx, &e, 1) == 1) {
            received++; last_rx = us;
            POST(fi_recv(b.ep, e.op_context, SIZE, NULL, FI_ADDR_UNSPEC, e.op_context));
        }
        if ((long) (sent - received) * SIZE > max_buffered) max_buffered = (long) (sent - received) * SIZE;
    }
    printf("%d sent, %d received; at most %ld KiB completed at the sender and not yet received (bound 12 MiB)\n",
           sent, received, max_buffered >> 10);
    verdict(received == COUNT && max_buffered <= 12L << 20, "a slow receiver's provider buffered up to %ld KiB%s",
            max_buffered >> 10, received == COUNT ? "" : ", and not every message arrived in 25 s");
}
