// fi_cntr(3): fi_cntr_wait "waits until the counter reaches the specified threshold or until an error or timeout
// occurs"; it returns -FI_ETIMEDOUT once timeout (ms) has passed. Opens a counter with FI_WAIT_UNSPEC (the default
// jfabric asks for), sets it to 100 and waits for 101 with a 200 ms timeout: it must return within about 200 ms.
// The alarm (10 s) catches a wait that never returns.
#include "repro.h"

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end s;
    open_one(argv[1], &s);
    struct fid_cntr *c; struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP, .wait_obj = FI_WAIT_UNSPEC };
    CHECK(fi_cntr_open(s.domain, &ca, &c, NULL));
    CHECK(fi_cntr_set(c, 100));
    int reached = fi_cntr_wait(c, 100, 1000);
    printf("fi_cntr_wait(100) at 100 = %d\n", reached);
    long t0 = now_ms();
    int rc = fi_cntr_wait(c, 101, 200);
    long ms = now_ms() - t0;
    printf("fi_cntr_wait(101, 200 ms) at 100 = %d (%s) after %ld ms\n", rc, fi_strerror(-rc), ms);
    verdict(reached == 0 && (rc == -FI_ETIMEDOUT || rc == -FI_EAVAIL) && ms >= 150 && ms < 2000,
            "fi_cntr_wait below its threshold returned %d after %ld ms (timeout 200 ms)", rc, ms);
}
