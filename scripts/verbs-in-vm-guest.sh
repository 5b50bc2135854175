#!/usr/bin/env bash
# The part of scripts/verbs-in-vm that runs inside the Soft-RoCE VM (rxe0 on 192.0.2.1, rxe1 on
# 192.0.2.2). usage: verbs-in-vm-guest.sh CLASSPATHS_FILE [STEP...]
# CLASSPATHS_FILE (written by scripts/verbs-in-vm) sets ROOT, CP, CLI_CP, CONF_CP, RPC_CP, RESULTS.
# Steps (all by default, in this order):
#   check     VerbsVmCheck: the provider checks (one JVM, then a second JVM killed mid-transfer, port down)
#   conform   the conformance suite, FI_PROVIDER=verbs: cases verbs/FI_EP_MSG and verbs;ofi_rxm/FI_EP_RDM
#   conform-heavy, conform-rest
#             the suite's classes that take longest here (CONFORM_HEAVY below), and all the others: together what
#             conform runs, in two VMs side by side (scripts/verbs-in-vm's default run)
#   pingpong  perftest ib_send_lat / ib_write_bw, then in one JVM pair (server rxe1, client rxe0): jfabric pingpong
#             -c, 64 B .. 4 MiB, on verbs msg and verbs;ofi_rxm rdm, and pingpong / rma-bw beside perftest
#   perf      only perftest and the jfabric runs beside it (a subset of pingpong)
#   rpc       examples/rpc: file copy and RpcBenchmark on verbs;ofi_rxm
#   atomic    jfabric atomic -c: rxm's atomics on verbs;ofi_rxm, and the adapter's RC atomics on verbs msg, every
#             test's target and fetched element checked (not by default)
#   nettyci   netty-transport on verbs (FI_EP_MSG) and verbs;ofi_rxm, CI's set (NETTY_CI_CLASSES below)
#   netty     netty-transport's tests on verbs (FI_EP_MSG) and verbs;ofi_rxm: echo, gRPC, netty-testsuite (not default)
#   srqmem    SrqMemoryBench: memory per peer of a verbs;ofi_rxm endpoint with SRQMEM_PEERS (64) peers, with
#             FI_OFI_RXM_USE_SRX=0 (per connection) and =1 (one SRQ) (docs/performance.md)
# Each step prints PASS/FAIL lines; the exit status is 0 when every step passed.
set -u
. "$1"
shift
STEPS=("$@")
[ ${#STEPS[@]} -gt 0 ] || STEPS=(check conform pingpong rpc nettyci)
# C1 only: under TCG emulation the JIT's own work is what costs most
JAVA=(java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1)
IP1="${SOFTROCE_IP:-192.0.2.1}" IP2="${SOFTROCE_IP2:-192.0.2.2}"
DEV1="${SOFTROCE_DEV:-rxe0}" DEV2="${SOFTROCE_DEV2:-rxe1}"
rc=0
mkdir -p "$RESULTS"
stamp() { echo "== [$(date +%T)] $*"; }

# Runs jfabric command lines (separated by --then) in one server JVM on rxe1 and one client JVM on rxe0
# (PingPongLauncher: one warmed-up JVM per side, run k on control port 47592+k). usage: pair LOGNAME ARGS...
# Prints the client's output, then the server's; sets PAIR_RC.
pair() {
  local log="$1"; shift
  local main=(-cp "$CLI_CP" io.jfabric.provider.verbs.PingPongLauncher)
  "${JAVA[@]}" "${main[@]}" server "$DEV2" -- "$@" >"$RESULTS/$log-server.log" 2>&1 &
  local server=$!
  "${JAVA[@]}" "${main[@]}" client "$DEV1" "$IP2" -- "$@" >"$RESULTS/$log-client.log" 2>&1
  local crc=$?
  wait $server
  local src=$?
  cat "$RESULTS/$log-client.log"
  echo "-- server:"
  cat "$RESULTS/$log-server.log"
  PAIR_RC=$(( crc != 0 || src != 0 ))
}

# the status of run K of a pair on both sides: "PASS label" or "FAIL label"
verdict() {
  local log="$1" k="$2" label="$3"
  if grep -q "^== run $k exit 0$" "$RESULTS/$log-client.log" && grep -q "^== run $k exit 0$" "$RESULTS/$log-server.log"; then
    echo "PASS $label"
  else
    echo "FAIL $label"; rc=1
  fi
}

step_check() {
  stamp "VerbsVmCheck"
  # the conformance suite's TwoProcessTest and PeerKilledTest cover VerbsVmCheck's two-JVM part: skip it then
  local two=1
  [[ " ${STEPS[*]} " == *" conform"* ]] && two=0
  VERBS_TWO_JVMS=$two "${JAVA[@]}" -cp "$CP" io.jfabric.provider.verbs.VerbsVmCheck || rc=1
  stamp "jfabric info -p verbs;ofi_rxm"
  "${JAVA[@]}" -cp "$CLI_CP" io.jfabric.cli.Main info -p "verbs;ofi_rxm" || { echo "FAIL verbs;ofi_rxm not offered"; rc=1; }
}

# the conformance classes that take longest in the VM, about half of the suite's time there (1,250 s on 2026-12-04):
# PeerFailureTest 325 s, AtomicContentionTest 216, VirtualThreadWaitTest 120, ManyPeersTest 101, TwoProcessTest 95,
# SlowReceiverTest 70 (provider-verbs/target/vm-results/conformance*.log has each class's time)
CONFORM_HEAVY='.*PeerFailureTest,.*AtomicContentionTest,.*VirtualThreadWaitTest,.*ManyPeersTest,.*TwoProcessTest'
CONFORM_HEAVY+=',.*SlowReceiverTest'

# usage: conform_run LOGNAME WHAT INCLUDE [EXCLUDED_CLASS_REGEX...]
conform_run() {
  local log="$1" what="$2" include="$3"; shift 3
  stamp "conformance suite$what, FI_PROVIDER=verbs (verbs/FI_EP_MSG and verbs;ofi_rxm/FI_EP_RDM), two JVMs where the suite uses them"
  # PingPongInteropTest needs libfabric's C fi_pingpong and ReadmeExampleTest compiles with javac: neither
  # is about verbs, and both run on the host. AtomicContentionTest's FI_SUM phase runs 1,000 operations per peer
  # JVM instead of 10,000 (opsDivisor): an rxm atomic over Soft-RoCE takes about 10 ms under TCG, and the full
  # count took 291-455 s of the run. PeerFailureTest streams 64 KiB messages instead of 1 MiB (bytesDivisor):
  # Soft-RoCE carries about 1 MB/s here, and its 1 MiB streams took 505 s of a 1447 s run. The per-test limit of
  # 900 s bounds a hang, not a normal test
  (cd "$ROOT/conformance-tests" && FI_PROVIDER=verbs "${JAVA[@]}" -Djfabric.conformance.timeScale=8 \
      -Djfabric.conformance.opsDivisor=10 -Djfabric.conformance.bytesDivisor=16 \
      -Djfabric.conformance.peerJvmOptions=-XX:TieredStopAtLevel=1 -Djfabric.conformance.testLimitMs=900000 \
      -Djfabric.conformance.include="$include" -cp "$CONF_CP" io.jfabric.provider.verbs.ConformanceInVm \
      '.*PingPongInteropTest' '.*ReadmeExampleTest' '.*CrossImplementationMatrixTest' "$@") \
    | tee "$RESULTS/$log.log" | grep -v '^\s*at \|^Nov\|^Dec\|^WARNING\|^INFO'
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
}

step_conform() {
  conform_run conformance "" "${CONFORM_INCLUDE:-}"
}

step_conform_heavy() {
  conform_run conformance-heavy " (its longest classes)" "$CONFORM_HEAVY"
}

step_conform_rest() {
  local heavy
  IFS=, read -ra heavy <<<"$CONFORM_HEAVY"
  conform_run conformance-rest " (all but its longest classes)" "" "${heavy[@]}"
}

# netty-transport's tests in one JVM, servers on rxe0; the waits of echo and gRPC stretched 8 x for the emulation
# (netty-testsuite's own waits are Netty's). The suite's connection attempts dial an unused address of the rxe
# network (NETTY_BAD_HOST), which nothing answers. usage: netty_run LOGNAME CLASS_REGEXES
netty_run() {
  local p="${NETTY_PROVIDERS:-verbs,verbs;ofi_rxm}"
  (cd "$ROOT/netty-transport" && "${JAVA[@]}" -Djfabric.conformance.package=io.jfabric.netty \
      -Djfabric.conformance.testLimitMs=600000 -Djfabric.netty.test.timeScale=8 -Djfabric.conformance.include="$2" \
      '-Djfabric.conformance.classOrder=org.junit.jupiter.api.ClassOrderer$ClassName' \
      -Djfabric.netty.test.providers="$p" -Djfabric.netty.testsuite.providers="$p" -Djfabric.netty.testsuite.ssl="$p" \
      -Djfabric.netty.test.node="$IP1" -Djfabric.netty.testsuite.badHost="${NETTY_BAD_HOST:-192.0.2.77}" \
      -Dio.netty.customResourceLeakDetector=io.jfabric.netty.RecordingLeakDetector \
      -cp "$NETTY_CP" io.jfabric.provider.verbs.ConformanceInVm) \
    | tee "$RESULTS/$1.log" | grep -v '^\s*at \|^Nov\|^Dec\|^WARNING\|^INFO\|^[0-9:.]* \[.*\] \(WARN\|INFO\|DEBUG\) '
  [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
}

# every class but SslEcho, whose 96 combinations per provider (30-45 s each on the host, CPU-bound) would take most of
# an hour here: VERBS_NETTY_INCLUDE='.*SslEchoTest' runs it (with VERBS_IN_VM_TIMEOUT=3600)
step_netty() {
  stamp "netty-transport's echo, gRPC and netty-testsuite tests on verbs and verbs;ofi_rxm, servers on $IP1"
  netty_run netty "${NETTY_INCLUDE:-.*JfabricEchoTest,.*GrpcOverJfabricTest,.*testsuite\.Jfabric(?!SocketSslEcho).*Test}"
}

# CI's Netty set: echo and gRPC, and the netty-testsuite classes that fit CI's budget beside them (each class's time
# in the VM is in provider-verbs/VM-RESULTS.md; the echo classes of the suite take 15-25 s each there, and
# JfabricEchoTest covers echo); `netty` runs every class
NETTY_CI_CLASSES='.*JfabricEchoTest,.*GrpcOverJfabricTest,.*JfabricSocketExceptionHandlingTest'
NETTY_CI_CLASSES+=',.*JfabricSocketCancelWriteTest,.*JfabricSocketBufReleaseTest,.*JfabricSocketAutoReadTest'
NETTY_CI_CLASSES+=',.*JfabricSocketDataReadInitialStateTest,.*JfabricCompositeBufferGatheringWriteTest'

step_nettyci() {
  stamp "netty-transport on verbs and verbs;ofi_rxm, CI's set (echo, gRPC, 6 netty-testsuite classes), servers on $IP1"
  netty_run nettyci "${NETTY_INCLUDE:-$NETTY_CI_CLASSES}"
}

perftest() {
  local gid1="${SOFTROCE_GID_INDEX:-1}" gid2="${SOFTROCE_GID_INDEX2:-1}" s
  stamp "perftest on $DEV1 -> $DEV2 (emulation numbers: ratios only)"
  ib_send_lat -d "$DEV2" -x "$gid2" -s 64 -n 200 -F >"$RESULTS/ib_send_lat-server.log" 2>&1 &
  s=$!; sleep 2
  ib_send_lat -d "$DEV1" -x "$gid1" -s 64 -n 200 -F "$IP2" 2>&1 | tee "$RESULTS/ib_send_lat.log"
  wait $s
  ib_write_bw -d "$DEV2" -x "$gid2" -s 65536 -n 200 -F >"$RESULTS/ib_write_bw-server.log" 2>&1 &
  s=$!; sleep 2
  ib_write_bw -d "$DEV1" -x "$gid1" -s 65536 -n 200 -F "$IP2" 2>&1 | tee "$RESULTS/ib_write_bw.log"
  wait $s
  # jfabric rma-bw has no -d: it takes the first verbs info (rxe0) on both sides, so compare on rxe0 -> rxe0
  ib_write_bw -d "$DEV1" -x "$gid1" -s 65536 -n 200 -F >"$RESULTS/ib_write_bw-lo-server.log" 2>&1 &
  s=$!; sleep 2
  ib_write_bw -d "$DEV1" -x "$gid1" -s 65536 -n 200 -F "$IP1" 2>&1 | tee "$RESULTS/ib_write_bw-lo.log"
  wait $s
}

PERF_RUNS=(pingpong -p verbs -e msg -S 64 -I 200 --warmup 20 --timeout 300000
  --then rma-bw -p verbs -e msg -o write -S 64k -I 10 -w 2 -W 16 --no-progress --timeout 300000)

step_perf() { # perftest and the jfabric runs beside it only
  perftest
  stamp "jfabric pingpong / rma-bw beside perftest"
  pair perf "${PERF_RUNS[@]}"
  verdict perf 0 "jfabric pingpong -p verbs -e msg -S 64 -I 200 (beside ib_send_lat)"
  verdict perf 1 "jfabric rma-bw -p verbs -e msg -o write -S 64k, rxe0 -> rxe0 (beside ib_write_bw)"
}

step_pingpong() {
  # perftest first, on an idle VM, then one JVM pair for every jfabric run: with -c every byte is checked
  # in Java (C1 under emulation: seconds per MiB), so few iterations; 64 B .. 1 MiB, then 4 MiB alone
  perftest
  stamp "jfabric pingpong -c on verbs msg and verbs;ofi_rxm rdm (64 B .. 4 MiB), then pingpong/rma-bw for the ratios"
  local T=(--timeout 300000)
  pair pp pingpong -p verbs -e msg -c -I 2 "${T[@]}" \
      --then pingpong -p verbs -e msg -c -S 4194304 -I 1 "${T[@]}" \
      --then pingpong -p "verbs;ofi_rxm" -e rdm -c -I 2 "${T[@]}" \
      --then pingpong -p "verbs;ofi_rxm" -e rdm -c -S 4194304 -I 1 "${T[@]}" \
      --then "${PERF_RUNS[@]}"
  verdict pp 0 "jfabric pingpong -p verbs -e msg -c (64 B .. 1 MiB)"
  verdict pp 1 "jfabric pingpong -p verbs -e msg -c -S 4194304"
  verdict pp 2 "jfabric pingpong -p verbs;ofi_rxm -e rdm -c (64 B .. 1 MiB)"
  verdict pp 3 "jfabric pingpong -p verbs;ofi_rxm -e rdm -c -S 4194304"
  verdict pp 4 "jfabric pingpong -p verbs -e msg -S 64 -I 200 (beside ib_send_lat)"
  verdict pp 5 "jfabric rma-bw -p verbs -e msg -o write -S 64k, rxe0 -> rxe0 (beside ib_write_bw)"
}

# an rxm connection over verbs takes seconds to set up under emulation, and a busy emulated server can
# answer a ping late: stretch the engine's EAGAIN retry and peer timeout
RPC_PROPS=(-Drpc.postRetryMs=120000 -Drpc.peerTimeoutMs=60000)

step_rpc() {
  stamp "examples/rpc on verbs;ofi_rxm: RpcServer (rxe0) and FileCopyClient, 3 MiB + 12345 B through bulk RMA"
  local dir=/tmp/rpc; mkdir -p $dir/store
  head -c $((3 * 1048576 + 12345)) /dev/urandom >$dir/data.bin
  "${JAVA[@]}" "${RPC_PROPS[@]}" -cp "$RPC_CP" io.jfabric.examples.rpc.RpcServer -p "verbs;ofi_rxm" --addr-file $dir/srv.addr \
      --dir $dir/store >"$RESULTS/rpc-server.log" 2>&1 &
  local server=$!
  for _ in $(seq 1 240); do [ -s $dir/srv.addr ] && break; kill -0 $server 2>/dev/null || break; sleep 0.5; done
  "${JAVA[@]}" "${RPC_PROPS[@]}" -cp "$RPC_CP" io.jfabric.examples.rpc.FileCopyClient -p "verbs;ofi_rxm" --addr-file $dir/srv.addr \
      --file $dir/data.bin --timeout 120000 --shutdown 2>&1 | tee "$RESULTS/rpc-client.log"
  local crc=${PIPESTATUS[0]}
  wait $server; local src=$?
  if [ $crc -eq 0 ] && [ $src -eq 0 ] && grep -q '^OK' "$RESULTS/rpc-client.log"; then
    echo "PASS examples/rpc file copy on verbs;ofi_rxm (client $crc, server $src)"
  else
    echo "FAIL examples/rpc file copy on verbs;ofi_rxm (client $crc, server $src)"; cat "$RESULTS/rpc-server.log"; rc=1
  fi
  stamp "examples/rpc RpcBenchmark on verbs;ofi_rxm"
  "${JAVA[@]}" "${RPC_PROPS[@]}" -Drpc.serverStartMs=240000 -cp "$RPC_CP" io.jfabric.examples.rpc.RpcBenchmark \
      --providers "verbs;ofi_rxm" --seconds 3 2>&1 | tee "$RESULTS/rpc-bench.log"
  grep -q '^| verbs;ofi_rxm | [0-9]' "$RESULTS/rpc-bench.log" && echo "PASS RpcBenchmark on verbs;ofi_rxm" \
    || { echo "FAIL RpcBenchmark on verbs;ofi_rxm"; rc=1; }
}

step_atomic() {
  # -c checks each test's target and fetched element (AtomicExpectation); few operations per test: under
  # emulation an rxm atomic over verbs takes milliseconds
  stamp "jfabric atomic -c on verbs;ofi_rxm rdm (rxm's protocol) and verbs msg (RC atomics)"
  local A=(-I 2 -w 1 -W 4 -c --no-progress --timeout 300000)
  pair atomic atomic -p "verbs;ofi_rxm" -e rdm -o all -z uint64 "${A[@]}" \
      --then atomic -p "verbs;ofi_rxm" -e rdm -o all -z double "${A[@]}" \
      --then atomic -p "verbs;ofi_rxm" -e rdm -o sum -z all "${A[@]}" \
      --then atomic -p verbs -e msg -o all -z uint64 "${A[@]}" \
      --then atomic -p verbs -e msg -o all -z int64 "${A[@]}"
  verdict atomic 0 "jfabric atomic -c -p verbs;ofi_rxm -e rdm -o all -z uint64"
  verdict atomic 1 "jfabric atomic -c -p verbs;ofi_rxm -e rdm -o all -z double"
  verdict atomic 2 "jfabric atomic -c -p verbs;ofi_rxm -e rdm -o sum -z all"
  verdict atomic 3 "jfabric atomic -c -p verbs -e msg -o all -z uint64 (RC atomics)"
  verdict atomic 4 "jfabric atomic -c -p verbs -e msg -o all -z int64 (RC atomics)"
}

step_srqmem() {
  local n="${SRQMEM_PEERS:-64}" srx
  for srx in 0 1; do
    stamp "SrqMemoryBench: verbs;ofi_rxm server (rxe1) with $n peers (rxe0), FI_OFI_RXM_USE_SRX=$srx"
    local dir=/tmp/srqmem-$srx; rm -rf $dir; mkdir -p $dir
    local main=(-cp "$CP" io.jfabric.provider.verbs.SrqMemoryBench)
    FI_OFI_RXM_USE_SRX=$srx "${JAVA[@]}" "${main[@]}" server "$n" $dir/addr $dir/done "$IP2" \
      >"$RESULTS/srqmem-$srx-server.log" 2>&1 &
    local server=$!
    FI_OFI_RXM_USE_SRX=$srx "${JAVA[@]}" "${main[@]}" client "$n" $dir/addr $dir/done "$IP1" \
      >"$RESULTS/srqmem-$srx-client.log" 2>&1
    local crc=$?
    wait $server; local src=$?
    cat "$RESULTS/srqmem-$srx-client.log" "$RESULTS/srqmem-$srx-server.log"
    if [ $crc -eq 0 ] && [ $src -eq 0 ]; then echo "PASS srqmem use_srx=$srx"; else echo "FAIL srqmem use_srx=$srx"; rc=1; fi
  done
}

for s in "${STEPS[@]}"; do
  "step_${s//-/_}"
done
stamp "done (exit $rc)"
exit $rc
