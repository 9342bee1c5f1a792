/* #pragma D option pspec: `long*p` is read as a probe description, not a declaration, and a
   description needs a predicate or actions (reference DTrace for Linux 2.0.1 agrees). */
#pragma D option pspec

long*p
