/* flags: -q */
/* One aggregation keyed by integers of different widths in different clauses keeps every
   value, printed by the width of its first clause's type (-1 as uint8 is 255). Expected output
   from the reference DTrace for Linux. */
BEGIN { @k["x", (uint16_t)7, (uint8_t)9] = sum(10); @n[(int8_t)-1] = count(); }
BEGIN { @k["y", (uint16_t)8, (int)1000] = sum(20); @k["x", (uint16_t)7, (long)9] = sum(5); @n[(int)-3] = count(); }
END { printa(@k); printa(@n); }
BEGIN { exit(0); }
