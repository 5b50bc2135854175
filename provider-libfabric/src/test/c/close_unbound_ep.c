// fi_endpoint(3): fi_close of an endpoint releases it; nothing requires it to have been bound or enabled first.
// Opens an RDM endpoint and closes it at once. libfabric 1.17's rxm (tcp;ofi_rxm) segfaults in that fi_close
// (the signal ends the program: no verdict line); shm and udp;ofi_rxd close it.
#include "repro.h"

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end s;
    open_one(argv[1], &s);
    struct fid_ep *ep;
    CHECK(fi_endpoint(s.domain, info, &ep, NULL));
    int rc = fi_close(&ep->fid);
    verdict(rc == 0, "fi_close of an endpoint never bound nor enabled = %d", rc);
}
