// fi_endpoint(3): fi_close of an endpoint releases it; nothing requires it to have been bound or enabled first.
// Opens an RDM endpoint and closes it at once. libfabric 1.17's rxm (tcp;ofi_rxm) segfaults in that fi_close
// (the signal ends the program: no verdict line); shm and udp;ofi_rxd close it. Cause: rxm_ep_close
// (prov/rxm/src/rxm_ep.c) frees the endpoint's connections through its AV (rxm_freeall_conns reads the AV's
// peer count) without checking that one is bound. AV=1 binds an AV first and closes the endpoint unenabled: PASS
// on all three, which is what the libfabric provider does for an rxm endpoint closed with no AV bound.
#include "repro.h"

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end s;
    open_one(argv[1], &s);
    struct fid_ep *ep;
    CHECK(fi_endpoint(s.domain, info, &ep, NULL));
    if (getenv("AV")) {
        struct fi_av_attr aa = { .type = FI_AV_UNSPEC };
        CHECK(fi_av_open(s.domain, &aa, &s.av, NULL));
        CHECK(fi_ep_bind(ep, &s.av->fid, 0));
    }
    int rc = fi_close(&ep->fid);
    verdict(rc == 0, "fi_close of an endpoint never %s = %d", getenv("AV") ? "enabled (bound to an AV)" : "bound nor enabled", rc);
}
