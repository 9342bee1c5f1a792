// DTrace's refusal without root or CAP_BPF and CAP_PERFMON: the library API's check (src/api/access.ts).
export { missingPrivileges } from '../api/access.js';
