// fi_av(3): without FI_SYNC_ERR, fi_av_insert "returns the number of addresses successfully inserted" and an
// address that fails is given FI_ADDR_NOTAVAIL, the others are inserted. Native addresses of a sockaddr format are
// addrlen bytes each, packed back to back; this inserts {good, zeros, 0xFF bytes, good2} and checks that both good
// ones are inserted and look up as given (the jfabric test's "empty" and "truncated" addresses have no native
// equivalent: native slots have one fixed size, so the libfabric provider must refuse a wrong-length address itself).
// ALONE=1: then inserts the 0xFF address (sa_family 0xFFFF) by itself and looks both good addresses up again, and
// inserts good2 once more. tcp;ofi_rxm refuses it (0) but its AV is broken from then on: both lookups give 0 bytes
// and the next insert answers -FI_EINVAL; with sa_family AF_INET (FAM=1) the same bytes leave the AV intact.
#include "repro.h"
#include <sys/socket.h>

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], FI_EP_RDM, FI_MSG, &a, &b);
    char good[128], good2[128]; size_t len = sizeof good, len2 = sizeof good2;
    CHECK(fi_getname(&b.ep->fid, good, &len));
    CHECK(fi_getname(&a.ep->fid, good2, &len2));
    if (info->addr_format == FI_ADDR_STR) verdict(1, "not applicable: FI_ADDR_STR addresses have no fixed size");
    struct fid_av *av; struct fi_av_attr aa = { .type = FI_AV_TABLE };
    CHECK(fi_av_open(a.domain, &aa, &av, NULL));
    char batch[4 * 128];
    memcpy(batch, good, len); memset(batch + len, 0, len); memset(batch + 2 * len, 0xFF, len); memcpy(batch + 3 * len, good2, len);
    fi_addr_t out[4];
    int n = fi_av_insert(av, batch, 4, out, 0, NULL);
    printf("fi_av_insert of 4 = %d; fi_addrs:", n);
    for (int i = 0; i < 4; i++) printf(" %s", out[i] == FI_ADDR_NOTAVAIL ? "NOTAVAIL" : "ok");
    printf("\n");
    char back[128]; size_t blen = sizeof back;
    int ok = out[0] != FI_ADDR_NOTAVAIL && out[3] != FI_ADDR_NOTAVAIL;
    if (ok) ok = fi_av_lookup(av, out[3], back, &blen) == 0 && memcmp(back, good2, len) == 0;
    if (getenv("ALONE") && ok) {
        char bad[128];
        memset(bad, 0xFF, len);
        if (getenv("FAM")) { struct sockaddr *sa = (struct sockaddr *) bad; sa->sa_family = AF_INET; }
        fi_addr_t one = 0;
        int r = fi_av_insert(av, bad, 1, &one, 0, NULL);
        char b0[128], b3[128]; size_t l0 = sizeof b0, l3 = sizeof b3;
        int r0 = fi_av_lookup(av, out[0], b0, &l0), r3 = fi_av_lookup(av, out[3], b3, &l3);
        fi_addr_t again = 0;
        int ra = fi_av_insert(av, good2, 1, &again, 0, NULL);
        printf("the bad address alone: fi_av_insert = %d; then lookups %d (%zu bytes), %d (%zu bytes); good2 again = %d\n",
               r, r0, l0, r3, l3, ra);
        verdict(r0 == 0 && l0 == len && memcmp(b0, good, len) == 0 && r3 == 0 && l3 == len && ra == 1,
                "the AV after a bad address inserted alone: %s", l0 == len && ra == 1 ? "intact" : "broken");
    }
    verdict(ok, "good addresses around bad ones: first %s, last %s", out[0] == FI_ADDR_NOTAVAIL ? "refused" : "inserted",
            out[3] == FI_ADDR_NOTAVAIL ? "refused" : "inserted");
}
