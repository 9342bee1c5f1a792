/* flags: -q */
/* Integer inlines are constant expressions where aggregating functions and stack() need one. */
inline int LOW = 0;
inline int HIGH = 4;
inline int FRAMES = 3;

BEGIN
{
	@l = lquantize(2, LOW, HIGH, 1);
	@ll = llquantize(5, 10, LOW, HIGH - 2, 10);
	@s[stack(FRAMES)] = count();
	trunc(@s);
	exit(0);
}
