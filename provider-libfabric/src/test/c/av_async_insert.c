// fi_av(3): an AV opened with FI_EVENT and bound to an EQ completes each insert with an FI_AV_COMPLETE event whose
// fi_eq_entry context is the insert's context and whose data is the number of addresses inserted; after it, each
// fi_addr handed out looks up to the address inserted (fi_av_lookup).
#include "repro.h"

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], FI_EP_RDM, FI_MSG, &a, &b);
    struct fid_av *av; struct fi_av_attr aa = { .type = FI_AV_TABLE, .flags = FI_EVENT };
    CHECK(fi_av_open(a.domain, &aa, &av, NULL));
    CHECK(fi_av_bind(av, &a.eq->fid, 0));
    char names[2][128]; size_t len = sizeof names[0], len2 = sizeof names[1];
    CHECK(fi_getname(&b.ep->fid, names[0], &len));
    CHECK(fi_getname(&a.ep->fid, names[1], &len2));
    char batch[256];
    memcpy(batch, names[0], len);
    memcpy(batch + (info->addr_format == FI_ADDR_STR ? strlen(names[0]) + 1 : len), names[1], len2);
    static int insert_ctx;
    fi_addr_t out[2];
    int rc = fi_av_insert(av, batch, 2, out, 0, &insert_ctx);
    printf("fi_av_insert (FI_EVENT) = %d\n", rc);
    uint32_t ev; struct fi_eq_entry e; long end = now_ms() + 5000; ssize_t n = 0;
    while (now_ms() < end && (n = fi_eq_read(a.eq, &ev, &e, sizeof e, 0)) == -FI_EAGAIN) drive();
    if (n < 0) verdict(0, "no FI_AV_COMPLETE within 5 s (fi_eq_read = %zd)", n);
    printf("event %u (FI_AV_COMPLETE = %u) context %p (insert's: %p) data %lu\n", ev, FI_AV_COMPLETE, e.context,
           (void *) &insert_ctx, (unsigned long) e.data);
    char back[128]; size_t blen = sizeof back;
    int lookup = fi_av_lookup(av, out[0], back, &blen);
    printf("fi_av_lookup(fi_addr %lu) = %d (%s)\n", (unsigned long) out[0], lookup, fi_strerror(-lookup));
    verdict(ev == FI_AV_COMPLETE && e.context == &insert_ctx && e.data == 2 && lookup == 0,
            "FI_AV_COMPLETE %s, context %s, data %lu, lookup of the first fi_addr %d",
            ev == FI_AV_COMPLETE ? "arrived" : "missing", e.context == &insert_ctx ? "the insert's" : "wrong",
            (unsigned long) e.data, lookup);
}
