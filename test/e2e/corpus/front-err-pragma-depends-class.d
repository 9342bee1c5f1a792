/* flags: -xerrtags */
#pragma D depends_on kernel vmlinux
BEGIN { exit(0); }
