// fi_msg(3) FI_MULTI_RECV with messages past the eager size: one buffer posted with fi_recvmsg(FI_MULTI_RECV) and
// FI_OPT_MIN_MULTI_RECV 1024 takes five messages sent back to back (64 B, 100,000 B, 64 B, 100,000 B, 2,000 B),
// 512 bytes to spare, so the fifth releases it. fi_cq(3): every completion of a message placed in the buffer carries
// the context the buffer was posted with, and buf points into it; the completion with FI_MULTI_RECV is the buffer's
// last ("applications can release a multi-recv buffer when it receives a completion with this flag set"). Then every
// object is closed (fi_close). PASS when all five land, each completion names the buffer's context, the buffer is
// released and nothing completes in it after that, and the closes return. A signal is reported with its
// place (the conformance suite's JVM died in fi_close after native tcp;ofi_rxm gave one completion a NULL context).
#define _GNU_SOURCE
#include "repro.h"
#include "crash_report.h"


static void close_end(struct end *s) {
    CHECK(fi_close(&s->ep->fid));
    CHECK(fi_close(&s->av->fid));
    CHECK(fi_close(&s->tx->fid));
    CHECK(fi_close(&s->rx->fid));
    CHECK(fi_close(&s->domain->fid));
    CHECK(fi_close(&s->eq->fid));
    CHECK(fi_close(&s->fabric->fid));
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], FI_EP_RDM, FI_MSG | FI_MULTI_RECV, &a, &b);
    report_crashes();
    size_t min = 1024;
    CHECK(fi_setopt(&b.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min));
    size_t sizes[] = {64, 100000, 64, 100000, 2000}, total = 0;
    for (int i = 0; i < 5; i++) total += sizes[i];
    char *buf = calloc(1, total + 512);
    static struct fi_context2 multi_ctx, tx_ctx;
    struct iovec iov = { .iov_base = buf, .iov_len = total + 512 };
    struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = &multi_ctx };
    POST(fi_recvmsg(b.ep, &m, FI_MULTI_RECV));
    char *out[5];
    for (int i = 0; i < 5; i++) {
        out[i] = malloc(sizes[i]);
        memset(out[i], 40 + i, sizes[i]);
        POST(fi_send(a.ep, out[i], sizes[i], NULL, a.peer, &tx_ctx));
    }
    int landed = 0, foreign = 0, released = 0, late = 0, sends = 0;
    struct fi_cq_tagged_entry e; struct fi_cq_err_entry ee;
    for (long end = now_ms() + 5000; now_ms() < end && (landed < 5 || sends < 5);) {
        int rc = cq_wait(b.rx, &e, &ee, 10);
        if (rc < 0) verdict(0, "receive error %s", fi_strerror(-rc));
        if (rc == 1) {
            int in_buf = (char *) e.buf >= buf && (char *) e.buf + e.len <= buf + total + 512;
            printf("completion: context %s, len %zu, buf %s, flags%s\n", e.op_context == &multi_ctx ? "the buffer's"
                   : e.op_context == NULL ? "NULL" : "foreign", e.len, in_buf ? "inside" : "outside",
                   (e.flags & FI_MULTI_RECV) ? " FI_MULTI_RECV" : "");
            if (e.op_context != &multi_ctx) foreign++;
            if (released) late++;
            if (e.flags & FI_MULTI_RECV) released = 1;
            if (e.len > 0) landed++;
        }
        if (cq_wait(a.tx, NULL, NULL, 0) == 1) sends++;
    }
    printf("%d of 5 messages landed, %d sends completed, %d completions with another context, %s, %d completions "
           "after FI_MULTI_RECV; closing\n", landed, sends, foreign, released ? "released" : "not released", late);
    close_end(&a);
    close_end(&b);
    verdict(landed == 5 && foreign == 0 && released && late == 0, "%d of 5 landed, %d completions without the buffer's "
            "context, %s, %d completions after the one with FI_MULTI_RECV", landed, foreign,
            released ? "released" : "never released", late);
}
