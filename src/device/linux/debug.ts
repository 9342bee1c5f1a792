// The developers' switches of the Linux device, apart so that the translator reads them
// without importing the device.

/** Developers' switches: dtrace(1) sets them from DTRACE_DEBUG_BPF, DTRACE_BPF_NOOPT, DTRACE_BPF_STATS, DTRACE_TEST_REJECT_CLAUSE and DTRACE_TEST_VANISH. */
export interface DeviceDebug {
  /** Print each BPF program as it is translated. */
  printPrograms?: boolean;
  /** No register allocation, fused comparisons or peephole passes. */
  noOptimize?: boolean;
  /** Print each program's size and the verifier's processed-instruction count. */
  stats?: boolean;
  /** Make clause N's program unverifiable (tests of the rejection message). */
  rejectClause?: number;
  /** Treat tracepoint GROUP/EVENT as removed by another tool after matching (tests of the message). */
  vanish?: string;
}
