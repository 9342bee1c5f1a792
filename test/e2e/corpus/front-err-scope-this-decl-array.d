/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
this int a[int]; BEGIN { exit(0); }
