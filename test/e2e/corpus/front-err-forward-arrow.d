/* flags: -xerrtags */
struct dtrace_fwd_only; BEGIN { trace(((struct dtrace_fwd_only *)0)->x); }