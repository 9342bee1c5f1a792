#!/usr/bin/env bash
# Puts dtrace where D scripts expect it: /usr/sbin/dtrace (`#!/usr/sbin/dtrace -qs`, DTrace's home
# in the DTraceToolkit and the DTrace book), a link to this checkout's bin/dtrace. Only when the
# place is free or already holds a link to a node-dtrace dtrace (another checkout's, or a dangling
# one): a foreign file is left alone, and said so.
#
# systemtap-sdt-dev's /usr/bin/dtrace (the SDT header/object generator build systems call, e.g.
# PostgreSQL's --enable-dtrace) stays: `npm link` refuses to replace it (EEXIST), and need not --
# /usr/sbin comes before /usr/bin in root's PATH, so root's `dtrace` is this one, while builds
# that call /usr/bin/dtrace (or run as users whose PATH has no sbin) keep systemtap's.
#
# SBIN (default /usr/sbin) and BIN (default /usr/bin) name the directories, for tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sbin="${SBIN:-/usr/sbin}"
bin="${BIN:-/usr/bin}"
target="$sbin/dtrace"
ours() { # is $1 a link to some node-dtrace checkout's bin/dtrace (or dangling)?
  [ -L "$1" ] || return 1
  local to; to="$(readlink "$1")"
  [ -e "$1" ] || return 0
  grep -qs '"name": "node-dtrace"' "$(dirname "$to")/../package.json"
}
if [ -e "$target" ] && ! ours "$target"; then
  echo "link-dtrace: $target exists and is not node-dtrace's; left alone (dtrace is $root/bin/dtrace)" >&2
elif [ -w "$sbin" ]; then
  ln -sfn "$root/bin/dtrace" "$target"
  echo "link-dtrace: $target -> $root/bin/dtrace"
else
  echo "link-dtrace: cannot write $sbin; as root: ln -s $root/bin/dtrace $target" >&2
fi
if [ -e "$bin/dtrace" ] && ! ours "$bin/dtrace" && grep -qs -i 'systemtap\|sdt' "$bin/dtrace"; then
  echo "link-dtrace: $bin/dtrace is systemtap-sdt-dev's SDT generator; kept for the build systems that call it." >&2
  echo "link-dtrace: root's PATH finds $target first; 'npm link' would refuse to replace $bin/dtrace (use $target, or npm link --force to replace it)." >&2
fi
