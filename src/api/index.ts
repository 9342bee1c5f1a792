// The package's main entry: the library API (dtrace.ts) and its types (types.ts).
export { DTrace, DTraceError, DTraceCompileError, type Program } from './dtrace.js';
export type * from './types.js';
