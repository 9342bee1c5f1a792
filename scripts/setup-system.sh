#!/usr/bin/env bash
# Installs what dtrace and its tests need from Debian's packages when it is missing: a C compiler
# and cpp (for -C and for the small programs the tests trace), python3 and PostgreSQL with SDT notes,
# libc's debug symbols, and Chromium for the flame graph's browser check.
# Safe to run again; does nothing when everything is present.
set -euo pipefail
need=()
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v cpp >/dev/null 2>&1 || need+=(cpp)
command -v make >/dev/null 2>&1 || need+=(make)
command -v g++ >/dev/null 2>&1 || need+=(g++)
[ -x /usr/bin/python3 ] || need+=(python3)
# PostgreSQL (Debian builds it with --enable-dtrace: SDT notes) for the USDT tests.
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql)
# libc's separate debug symbols (by build-id), so user stacks name libc's internal functions.
dpkg -s libc6-dbg >/dev/null 2>&1 || need+=(libc6-dbg)
# Chromium, headless, draws dtrace-flamegraph's SVG in its test.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# NATS with JetStream: the fleet's transport (dtraced and dtrace -x fleet; test/e2e/fleet.test.ts).
command -v nats-server >/dev/null 2>&1 || need+=(nats-server)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup-system: missing ${need[*]}; run as root to install them" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
# tracefs holds the tracepoint ids and formats; dtrace mounts it itself too.
if [ -d /sys/kernel/tracing ] && [ -z "$(ls -A /sys/kernel/tracing 2>/dev/null)" ] && [ "$(id -u)" = 0 ]; then
  mount -t tracefs nodev /sys/kernel/tracing || true
fi
# dtrace where `#!/usr/sbin/dtrace -qs` scripts expect it, when that place is free (link-dtrace.sh).
if [ "$(id -u)" = 0 ]; then bash "$(dirname "$0")/link-dtrace.sh" || true; fi
