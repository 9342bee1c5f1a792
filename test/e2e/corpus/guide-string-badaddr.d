/* flags: -q */
/*
 * A string that cannot be read is an invalid address when its record is copied, as DTrace
 * finds it there (no DIF offset): a NULL from strchr(), a bad stringof(), unset dynamic strings.
 * Each faulting clause is abandoned; the others go on.
 */
self string s;
string names[string];

BEGIN { printf("[%s]\n", strchr("abc", 'z')); }
BEGIN { printf("[%s]\n", stringof(1234)); }
BEGIN { printf("[%s]\n", self->s); }
BEGIN { printf("[%s]\n", names["none"]); }
BEGIN { printf("[%s]\n", strchr("abc", 'b')); exit(0); }
