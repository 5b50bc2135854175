// fi_tagged(3): FI_PEEK|FI_CLAIM reports an unexpected message and reserves it; a following fi_trecvmsg with
// FI_CLAIM and the same context receives that message into its buffer. Sends one tagged message of <size> bytes
// (default 65536: above rxm's eager limit, at most its SAR limit, so rxm sends it by SAR) with no receive posted,
// peeks for it with FI_PEEK|FI_CLAIM, claims it into a buffer of the same size and checks length and data.
// Cross-implementation matrix: deviation 1 (tsend, trecv FI_PEEK|FI_CLAIM then FI_CLAIM on tcp;ofi_rxm). PASSes
// with libfabric's default FI_OFI_RXM_ENABLE_DYN_RBUF=1; run with FI_OFI_RXM_ENABLE_DYN_RBUF=0, as the matrix's
// deviation does, the claim gets only the first SAR segment (see peek_claim_sar_2p.c for the two-process form).
#include "repro.h"

int main(int argc, char **argv) {
    usage_if(argc, argv);
    size_t size = argc > 2 ? strtoul(argv[2], NULL, 0) : 65536;
    struct end a, b;
    // Knobs that make it look more like the matrix's bridge node (each still passes on libfabric 1.17):
    // CAPS=matrix asks for FI_MSG|FI_RMA|FI_TAGGED|FI_MULTI_RECV, DIR=1 names the sender in the receives,
    // EXTRA=n gives the receive buffer n spare bytes, GAP=ms runs progress between the peek and the claim.
    uint64_t caps = getenv("CAPS") ? FI_MSG | FI_RMA | FI_TAGGED | FI_MULTI_RECV : FI_TAGGED;
    size_t extra = getenv("EXTRA") ? strtoul(getenv("EXTRA"), NULL, 0) : 0;
    open_pair(argv[1], FI_EP_RDM, caps, &a, &b);
    char *tx = malloc(size), *rx = calloc(1, size + extra);
    for (size_t i = 0; i < size; i++) tx[i] = (char) (i * 7 % 251);
    static struct fi_context2 sctx, pctx;
    POST(fi_tsend(a.ep, tx, size, NULL, a.peer, 0x1234, &sctx));
    // WAIT=ms: let the whole message arrive before the first peek (progress(), no completion taken)
    if (getenv("WAIT")) progress(atol(getenv("WAIT")));
    struct iovec iov = { .iov_base = rx, .iov_len = size + extra };
    struct fi_msg_tagged m = { .msg_iov = &iov, .iov_count = 1, .addr = getenv("DIR") ? b.peer : FI_ADDR_UNSPEC, .tag = 0x1234, .context = &pctx };
    struct fi_cq_tagged_entry got = {0};
    int rc;
    int claimed = peek_then_claim(b.ep, b.rx, &m, 3000, getenv("GAP") ? atol(getenv("GAP")) : 0, &got, &rc);
    int same = claimed == 1 && got.len == size && memcmp(tx, rx, size) == 0;
    verdict(rc == 1 && same, "a %zu-byte tagged message found by FI_PEEK|FI_CLAIM %s", size,
            rc != 1 ? "was never found" : claimed == 1 ? (same ? "was claimed intact" : "was claimed with wrong length or data")
            : claimed == 0 ? "was never delivered by FI_CLAIM" : "failed its FI_CLAIM receive");
}
