// fi_msg(3) FI_MULTI_RECV: the provider fills one posted buffer with several messages and releases it (a
// completion flagged FI_MULTI_RECV) once less than FI_OPT_MIN_MULTI_RECV is left; nothing goes past its end.
// Default mode: one 1024-byte buffer posted with fi_recvmsg(FI_MULTI_RECV), guard bytes on both sides, then three
// 600-byte messages. PASS when no guard byte changes and the buffer is released. MODE=drain: what
// LoadTest.fullTransmitQueueAnswersEagainAndLosesNothing did while the suite's infos (before FabricCase.freshInfo
// dropped it) carried rx op_flags FI_MULTI_RECV | FI_COMPLETION to fi_endpoint, so that every fi_recv was a
// multi-receive: up to 4 * tx_size + 64 sends of 1 KiB with no receive posted, then one 1 KiB buffer posted,
// read and reposted (fi_recvmsg(FI_MULTI_RECV)) per message; the signal that ends it is reported with its place.
// libfabric 1.17's udp;ofi_rxd: rxd_ep's min_multi_recv_size is 0 unless fi_setopt sets it (calloc, no
// default), so the buffer is never released, and rxd_progress_multi_recv (prov/rxd/src/rxd_cq.c) computes
// left = iov_len - total_size in size_t: a message longer than what is left wraps it round and is written past
// the buffer's end (the second 600-byte message: 176 bytes past it). MODE=drain writes every later message
// further on into the heap until libfabric's own structures break: here SIGSEGV at libfabric.so.1+0x3d6b7 (a
// hash lookup); in the JVM, with another heap layout, ofi_ibuf_is_lower at +0x459f0 (an rx entry freed into a
// corrupted indexed buffer pool) or udpx_ep_progress at +0x6b835, the frames of the old known-native-crashes.txt
// line. Not rxd's silent drop past tx_size: with INJ=1 the sends answer -FI_EAGAIN after tx_size and it crashes
// alike. rxd_progress_unexp_list (rxd_msg.c) also keeps the previous loop's dup_entry when
// rxd_progress_multi_recv returns none. tcp;ofi_rxm and shm PASS.
#define _GNU_SOURCE
#include "repro.h"
#include "crash_report.h"

#define BUF 1024
#define GUARD 2048


static ssize_t post_multi(struct end *b, char *buf, size_t len, void *ctx) {
    struct iovec iov = { .iov_base = buf, .iov_len = len };
    struct fi_msg m = { .msg_iov = &iov, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = ctx };
    return fi_recvmsg(b->ep, &m, FI_MULTI_RECV);
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    struct end a, b;
    open_pair(argv[1], FI_EP_RDM, FI_MSG | FI_MULTI_RECV, &a, &b);
    report_crashes();
    size_t min = 0, optlen = sizeof min;
    int gr = fi_getopt(&b.ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, &optlen);
    printf("FI_OPT_MIN_MULTI_RECV %zu (fi_getopt %d), tx_size %zu\n", min, gr, info->tx_attr->size);
    struct fi_cq_tagged_entry e;
    if (getenv("MODE") && strcmp(getenv("MODE"), "drain") == 0) {
        alarm(30);
        size_t limit = 4 * info->tx_attr->size + 64, accepted = 0, received = 0;
        char *out = calloc(limit, BUF), *in = malloc(BUF);
        ssize_t rc = 0;
        for (; accepted < limit; accepted++) {
            memcpy(out + accepted * BUF, &accepted, sizeof accepted);
            // INJ=1: the sends as that provider's fi_send reached rxd (its tx op_flags held FI_INJECT, so rxd took
            // its inject path, which answers -FI_EAGAIN past tx_size)
            rc = getenv("INJ") ? fi_inject(a.ep, out + accepted * BUF, BUF, a.peer)
                               : fi_send(a.ep, out + accepted * BUF, BUF, NULL, a.peer, NULL);
            if (rc != 0) break;
        }
        printf("%zu sends accepted, then %zd; draining through one %d-byte multi-receive buffer\n", accepted, rc, BUF);
        int posted = 0; long end = now_ms() + 20000;
        while (received < accepted && now_ms() < end) {
            if (!posted && post_multi(&b, in, BUF, in) == 0) posted = 1;
            ssize_t n = fi_cq_read(b.rx, &e, 1);
            if (n == 1) { received++; posted = 0; }
            fi_cq_read(a.tx, &e, 1);
        }
        verdict(1, "%zu of %zu messages taken through the multi-receive buffer, no signal", received, accepted);
    }
    alarm(10);
    char *mem = malloc(GUARD + BUF + GUARD), *buf = mem + GUARD, out[3][600];
    memset(mem, 0xA5, GUARD + BUF + GUARD);
    memset(buf, 0, BUF);
    POST(post_multi(&b, buf, BUF, buf));
    for (int i = 0; i < 3; i++) { memset(out[i], 'a' + i, sizeof out[i]); POST(fi_send(a.ep, out[i], sizeof out[i], NULL, a.peer, NULL)); }
    int got = 0, released = 0;
    for (int i = 0; i < 3; i++) {
        if (cq_wait(b.rx, &e, NULL, 2000) != 1) break;
        got++;
        printf("completion %d: len %zu at buffer offset %td%s\n", i, e.len, (char *) e.buf - buf,
               e.flags & FI_MULTI_RECV ? ", FI_MULTI_RECV (released)" : "");
        if (e.flags & FI_MULTI_RECV) released = 1;
    }
    progress(200);
    size_t past = 0, before = 0;
    for (size_t i = 0; i < GUARD; i++) { past += (unsigned char) buf[BUF + i] != 0xA5; before += (unsigned char) mem[i] != 0xA5; }
    verdict(past == 0 && before == 0 && released,
            "3 messages of 600 bytes into a %d-byte FI_MULTI_RECV buffer: %d completions, %zu guard bytes changed "
            "after its end, %zu before it, buffer %sreleased", BUF, got, past, before, released ? "" : "never ");
}
