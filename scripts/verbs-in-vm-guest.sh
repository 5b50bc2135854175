#!/usr/bin/env bash
# The part of scripts/verbs-in-vm that runs inside the Soft-RoCE VM (rxe0 on 192.0.2.1, rxe1 on
# 192.0.2.2). usage: verbs-in-vm-guest.sh CHECK_CLASSPATH [CLI_CLASSPATH]
#   1. VerbsVmCheck: the provider checks (one JVM, then a second JVM, then a port going down)
#   2. with CLI_CLASSPATH: `jfabric info -p verbs` and `jfabric pingpong -p verbs -e msg -c` between
#      two JVMs, server on rxe1, client on rxe0, all sizes, with data integrity checks
# Exit status: 0 when everything passed.
set -u
CP="$1"
CLI_CP="${2:-}"
JAVA=(java --enable-native-access=ALL-UNNAMED -XX:TieredStopAtLevel=1)

"${JAVA[@]}" -cp "$CP" io.jfabric.provider.verbs.VerbsVmCheck
rc=$?
[ -n "$CLI_CP" ] || exit $rc

echo "== jfabric info -p verbs"
"${JAVA[@]}" -cp "$CLI_CP" io.jfabric.cli.Main info -p verbs || rc=1

echo "== jfabric pingpong -p verbs -e msg -c, 64 B .. 1 MiB (server rxe1 192.0.2.2, client rxe0)"
# default sizes (64 B .. 1 MiB): with -c every byte is checked in Java, which under emulation costs
# about 70 ms per KiB round trip, so the larger sizes of -S all would take tens of minutes
PP=(-p verbs -e msg -c -I 10 --timeout 120000)
# PingPongLauncher warms discovery up before it starts io.jfabric.cli.Main: the server discovers and
# opens its fabric only after the client connected, and the client waits just 5 s (as fi_pingpong)
# for the server's address, less than a cold JVM needs for that under emulation
PPMAIN=(-cp "$CLI_CP" io.jfabric.provider.verbs.PingPongLauncher pingpong)
"${JAVA[@]}" "${PPMAIN[@]}" "${PP[@]}" -d "${SOFTROCE_DEV2:-rxe1}" >/tmp/pp-server.log 2>&1 &
server=$!
for _ in $(seq 1 120); do # the client does not retry: wait for the server's control port
  ss -ltn 2>/dev/null | grep -q ':47592 ' && break
  kill -0 $server 2>/dev/null || break
  sleep 0.5
done
"${JAVA[@]}" "${PPMAIN[@]}" "${PP[@]}" -d "${SOFTROCE_DEV:-rxe0}" "${SOFTROCE_IP2:-192.0.2.2}"
client_rc=$?
wait $server
server_rc=$?
echo "-- server output:"
cat /tmp/pp-server.log
if [ $client_rc -eq 0 ] && [ $server_rc -eq 0 ]; then
  echo "PASS jfabric pingpong -p verbs -e msg -c (client $client_rc, server $server_rc)"
else
  echo "FAIL jfabric pingpong -p verbs -e msg -c (client $client_rc, server $server_rc)"
  rc=1
fi
exit $rc
