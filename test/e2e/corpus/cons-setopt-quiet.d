/* flags: -x cpu=0 */
/*
 * setopt("quiet") turns quiet on from the next record: the probe line already printed stays,
 * its closing newline does not come. "no" and "" turn it off; "0" turns it on, as any number
 * sets DTrace's run-time options. The option and value may be any string expression.
 */
BEGIN { printf("a\n"); }
BEGIN { setopt("quiet"); printf("b\n"); }
BEGIN { printf("c\n"); setopt("quiet", "no"); }
BEGIN { printf("d\n"); setopt("quiet", "0"); }
BEGIN { printf("e\n"); opt = "quiet"; setopt(opt, ""); }
BEGIN { printf("f\n"); exit(0); }
