#!/usr/bin/env bash
# Regenerates provider-verbs' FFM bindings with jextract (https://jdk.java.net/jextract; not in any
# package registry, so CI cannot run this). Bound against rdma-core 44 (Debian bookworm's
# libibverbs-dev/librdmacm-dev) on x86_64 with jextract 25.
#
# The committed classes in io.jfabric.provider.verbs.ffi keep jextract's shape but are trimmed to what
# the provider uses (scripts/jextract-verbs.structs.py writes the struct classes), and carry two edits
# jextract cannot make: librdmacm handles capture errno, and the static inline ibv_poll_cq /
# ibv_req_notify_cq / ibv_post_send / ibv_post_recv are dispatched through ibv_context->ops.
# After regenerating, diff against the committed classes and run LayoutProbeTest.
#
# usage: scripts/jextract-verbs.sh [output-dir]    (default: target/jextract-verbs)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUT="${1:-$HERE/../provider-verbs/target/jextract-verbs}"
command -v jextract >/dev/null || { echo "jextract not found: download it from https://jdk.java.net/jextract" >&2; exit 2; }
mkdir -p "$OUT"
cat > "$OUT/verbs-all.h" <<'H'
#include <poll.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
H
jextract @"$HERE/jextract-verbs.args" --output "$OUT" "$OUT/verbs-all.h"
echo "generated into $OUT"
