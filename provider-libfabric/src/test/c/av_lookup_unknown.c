// fi_av(3): fi_av_lookup "returns the address stored in the address vector that corresponds to the given fi_addr";
// an fi_addr the AV never handed out has no address, so lookup (and remove) of it must fail.
// Inserts one peer, then looks up and removes peer + 1000. (rxd's FI_ENODATA would count as a failure here.)
#include "repro.h"

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], FI_EP_RDM, FI_MSG, &a, &b);
    fi_addr_t never = a.peer + 1000;
    char buf[256]; size_t len = sizeof buf;
    int lookup = fi_av_lookup(a.av, never, buf, &len);
    int removed = fi_av_remove(a.av, &never, 1, 0);
    printf("fi_av_lookup(%lu) = %d (%s), len %zu; fi_av_remove = %d (%s)\n", (unsigned long) never, lookup,
           fi_strerror(-lookup), len, removed, fi_strerror(-removed));
    verdict(lookup < 0 && removed < 0, "lookup of an fi_addr never inserted returned %d, remove returned %d", lookup,
            removed);
}
