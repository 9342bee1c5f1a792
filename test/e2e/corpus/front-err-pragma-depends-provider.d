/* flags: -xerrtags */
#pragma D depends_on provider fbt_on_solaris
BEGIN { exit(0); }
