/* flags: -q */
#pragma D option rawbytes
#pragma D option strsize=20
BEGIN { trace("hello"); exit(0); }
