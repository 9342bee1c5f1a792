/* flags: -xerrtags */
/* Agrees with the reference DTrace (message, tag and exit status). */
int a[5]; BEGIN { trace(a["x"]); }
