// jfabric's rule (LoadTest.fullTransmitQueueAnswersEagainAndLosesNothing): no more than tx_attr->size sends are
// outstanding (accepted and not completed); beyond that fi_send answers -FI_EAGAIN. libfabric's man pages only
// lean that way: fi_msg(3) lists a full processing queue among the reasons for -FI_EAGAIN, fi_endpoint(3) says
// size "is directly related to the number of command entries" but "there is not necessarily a one-to-one
// mapping" between a command and a queue entry. So DEVIATION here means "differs from jfabric's stricter rule".
// Posts up to 4 * tx_size + 64 sends of 1 KiB with no receive posted at the peer, then counts the sends that
// completed at the sender. DC=1 asks for FI_DELIVERY_COMPLETE, which a null-hints tcp info carries in its tx
// op_flags (as the conformance cases get it): then nothing completes and every send stays outstanding.
#include "repro.h"

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], type_arg(argc, argv, FI_EP_MSG), FI_MSG, &a, &b);
    size_t tx_size = info->tx_attr->size, limit = 4 * tx_size + 64;
    char *bufs = calloc(limit, 1024);
    size_t accepted = 0; ssize_t rc = 0;
    for (; accepted < limit; accepted++)
        if ((rc = fi_send(a.ep, bufs + accepted * 1024, 1024, NULL, a.peer, NULL)) != 0) break;
    size_t completed = 0; struct fi_cq_tagged_entry e[64]; ssize_t n;
    long end = now_ms() + 500;
    while (now_ms() < end) if ((n = fi_cq_read(a.tx, e, 64)) > 0) completed += n;
    printf("tx_size %zu: %zu sends accepted, then %zd (%s); %zu of them completed at the sender with nothing received\n",
           tx_size, accepted, rc, fi_strerror((int) -rc), completed);
    size_t outstanding = accepted - completed;
    verdict(outstanding <= tx_size, "%zu sends outstanding (accepted and not completed) against tx_size %zu%s",
            outstanding, tx_size, rc == -FI_EAGAIN ? ", then -FI_EAGAIN" : "");
}
