/* flags: -q -x pspec */
/* -x pspec: outer-scope words lex as probe descriptions, as -n's do; a script's clause still has
   its predicate or actions (front-err-pspec-bare.d). Reference DTrace for Linux 2.0.1 agrees. */
BEGIN { printf("begin\n"); exit(0); }
