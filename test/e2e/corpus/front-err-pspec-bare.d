/* flags: -x pspec */
/* Under -x pspec a bare description in a script is still refused, as DTrace refuses it
   (reference DTrace for Linux 2.0.1 agrees). */
BEGIN { exit(0); }
END
