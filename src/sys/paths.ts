// Where dtrace reads the running kernel's own files. The unit tests point these at the fixtures
// of test/fixtures/ (test/helpers/unit-paths.ts), so that they never read this machine's kernel;
// nothing else changes them.
export const systemPaths = {
  /** tracefs mount points, the first also where dtrace mounts it when none is mounted. */
  tracefs: ['/sys/kernel/tracing', '/sys/kernel/debug/tracing'],
  /** The kernel's BTF: vmlinux, and one file per module. */
  btfDir: '/sys/kernel/btf',
  /** Kernel symbols. */
  kallsyms: '/proc/kallsyms',
  /** Separate debug files of user programs and libraries (by build-id under .build-id/). */
  debugDir: '/usr/lib/debug',
  /** dtrace's own cache (the parsed D library); '' for none. Used only while root-owned and not writable by others. */
  cacheDir: '/var/cache/node-dtrace',
};
