// fi_mr(3) fi_mr_regv: "Multiple memory buffers are registered as a single memory region"; peers address that
// region (FI_MR_VIRT_ADDR: from the first buffer's virtual address, otherwise from offset 0) across all its buffers.
// Registers two separate buffers of 12 KiB and 20 KiB (a guard gap between them) as one region with fi_mr_regv,
// writes the first buffer alone through it (the control, which must work), then does the case, as
// RegattrTest does through the libfabric provider. Run: ./regv_two_segments <provider> [case], case one of
//   whole   fi_write of 32 KiB, the whole region, from its start (RegattrTest's valid write)
//   cross   fi_write of 16 bytes at region offset 12 KiB - 8, across the boundary
//   read    fi_read of 7000 bytes at region offset 12 KiB - 3000, across the boundary (after a whole-region fill
//           of the target done locally)
//   second  fi_write of the second buffer alone, addressed by region offset 12 KiB
// Without DC, shm (FI_MR_VIRT_ADDR, no RMA ordering) takes its fast RMA path: the initiator's process_vm_writev/readv
// straight to the target address, unchecked. DC=1 (FI_DELIVERY_COMPLETE, as the suite's refusal tests post) sends
// every RMA through the target's command queue and its range check; FI_LOG_LEVEL=warn shows that check's verdict.
#include "repro.h"
#include <stdint.h>

#define FIRST (12 * 1024)
#define SECOND (20 * 1024)
#define GAP (64 * 1024)

static char *one, *two;
static char src[FIRST + SECOND], back[7000];

// Waits up to 2 s for the target bytes to equal src over [off, off + len) of the region's concatenation.
static int landed(size_t off, size_t len) {
    for (long end = now_ms() + 2000;; drive()) {
        int ok = 1;
        for (size_t i = off; i < off + len && ok; i++) ok = (i < FIRST ? one[i] : two[i - FIRST]) == src[i];
        if (ok) return 1;
        if (now_ms() > end) return 0;
    }
}

static const char *what(int rc) {
    return rc == 1 ? "success" : rc == 0 ? "no completion within 3 s" : fi_strerror(-rc);
}

int main(int argc, char **argv) {
    usage_if(argc, argv);
    const char *which = argc > 2 ? argv[2] : "whole";
    struct end a, b;
    open_pair(argv[1], FI_EP_RDM, FI_MSG | FI_RMA, &a, &b);
    printf("mr_mode 0x%lx (FI_MR_VIRT_ADDR %s), mr_iov_limit %zu\n", (unsigned long) info->domain_attr->mr_mode,
           info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? "set" : "clear", info->domain_attr->mr_iov_limit);
    if (info->domain_attr->mr_iov_limit < 2 && !getenv("OVER")) verdict(1, "not applicable: mr_iov_limit %zu",
                                                     info->domain_attr->mr_iov_limit);
    // one area: the first buffer, a guard gap a contiguous write from the first buffer would run into, the second
    char *area = aligned_alloc(4096, FIRST + GAP + SECOND);
    memset(area, 0x33, FIRST + GAP + SECOND);
    one = area; two = area + FIRST + GAP;
    memset(one, 0, FIRST); memset(two, 0, SECOND);
    struct iovec iov[2] = { { one, FIRST }, { two, SECOND } };
    struct fid_mr *mr;
    CHECK(fi_mr_regv(b.domain, iov, 2, FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0x5E6A2, 0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) { CHECK(fi_mr_bind(mr, &b.ep->fid, 0)); CHECK(fi_mr_enable(mr)); }
    uint64_t key = fi_mr_key(mr), base = rma_addr(one);
    for (size_t i = 0; i < sizeof src; i++) src[i] = (char) (i * 7 + 1);

    // the control: the first buffer alone
    POST(fi_write(a.ep, src, FIRST, NULL, a.peer, base, key, NULL));
    int rc = cq_wait(a.tx, NULL, NULL, 3000);
    printf("control: fi_write of the first buffer (%d bytes at region offset 0): %s, %s\n", FIRST, what(rc),
           landed(0, FIRST) ? "landed" : "NOT landed");
    if (rc != 1) { printf("SETUP FAILED: the control write\n"); exit(2); }

    size_t off, len;
    int is_read = strcmp(which, "read") == 0;
    if (strcmp(which, "cross") == 0) { off = FIRST - 8; len = 16; }
    else if (is_read) { off = FIRST - 3000; len = sizeof back; }
    else if (strcmp(which, "second") == 0) { off = FIRST; len = SECOND; }
    else { which = "whole"; off = 0; len = FIRST + SECOND; }
    if (is_read) {
        memcpy(two, src + FIRST, SECOND); // the target holds src's bytes in both buffers
        POST(fi_read(a.ep, back, len, NULL, a.peer, base + off, key, NULL));
    } else {
        POST(fi_write(a.ep, src + off, len, NULL, a.peer, base + off, key, NULL));
    }
    struct fi_cq_err_entry ee;
    rc = cq_wait(a.tx, NULL, &ee, 3000);
    progress(200);
    int ok = is_read ? rc == 1 && memcmp(back, src + off, len) == 0 : landed(off, len);
    int spilled = 0;
    for (size_t i = FIRST; i < FIRST + GAP; i++) spilled |= area[i] != 0x33;
    printf("%s: fi_%s of %zu bytes at region offset %zu: %s; %s%s\n", which, is_read ? "read" : "write", len, off,
           what(rc), is_read ? (ok ? "data intact" : "data NOT returned") : (ok ? "landed" : "NOT landed"),
           spilled ? "; the guard gap after the first buffer CHANGED" : "");
    verdict(rc == 1 && ok && !spilled, "%s: an RMA into a two-buffer fi_mr_regv region %s%s", which,
            rc == 1 ? (ok ? "completed and moved the data" : "completed, but its data did not all land in the region")
                    : rc == 0 ? "never completed" : "failed with an error completion",
            spilled ? ", and it wrote past the first buffer into unregistered memory" : "");
}
