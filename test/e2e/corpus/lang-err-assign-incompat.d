/* flags: -xerrtags */
/* A global keeps its type: a struct cannot take an integer. */
struct s { int a; } f;

BEGIN
{
	f = 0;
}
