/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
struct input_struct { int ii; char ic; };
struct output_struct { int oi; char oc; };
translator struct output_struct < struct input_struct ivar >
{
	oi = ((struct input_struct) ivar).ii;
	oc = ((struct input_struct) ivar).ic;
};
struct output_struct out;
struct input_struct in;
BEGIN
{
	in.ii = 100;
	in.ic = 'z';
	out.oi = xlate < struct output_struct > (in).oi;
	printf("out.oi: %d out.oc: %d %c\n", out.oi, out.oc, xlate < struct output_struct > (in).oc);
	exit(0);
}
