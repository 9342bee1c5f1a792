/* flags: -q -x rawbytes -x strsize=16 */
/* -x rawbytes: trace() of a string shows its bytes as a hex dump. */
BEGIN { trace("abc"); exit(0); }
