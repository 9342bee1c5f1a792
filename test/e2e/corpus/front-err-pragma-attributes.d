/* flags: -xerrtags */
#pragma D attributes Sturdy/Stable/Common provider syscall provider
BEGIN { exit(0); }
