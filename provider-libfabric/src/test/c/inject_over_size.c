// fi_msg(3): fi_inject "is limited by the endpoint's inject_size"; a larger fi_inject must be refused.
// Sends inject_size bytes (must arrive), then inject_size + 1 bytes (must return an error other than -FI_EAGAIN).
#include "repro.h"

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], type_arg(argc, argv, FI_EP_RDM), FI_MSG, &a, &b);
    size_t n = info->tx_attr->inject_size;
    char *tx = calloc(1, n + 1), *rx = calloc(1, n + 1);
    memset(tx, 91, n + 1);
    POST(fi_recv(b.ep, rx, n + 1, NULL, FI_ADDR_UNSPEC, NULL));
    POST(fi_inject(a.ep, tx, n, a.peer));
    if (cq_wait(b.rx, NULL, NULL, 5000) != 1) { printf("SETUP FAILED: inject of inject_size never arrived\n"); return 2; }
    ssize_t rc = fi_inject(a.ep, tx, n + 1, a.peer);
    int arrived = 0;
    if (rc == 0) {
        POST(fi_recv(b.ep, rx, n + 1, NULL, FI_ADDR_UNSPEC, NULL));
        arrived = cq_wait(b.rx, NULL, NULL, 1000) == 1;
    }
    verdict(rc < 0 && rc != -FI_EAGAIN, "inject_size %zu; fi_inject of %zu bytes returned %zd (%s)%s", n, n + 1, rc,
            fi_strerror((int) -rc), arrived ? " and the message arrived" : "");
}
