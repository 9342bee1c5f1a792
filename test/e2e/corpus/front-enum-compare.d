/* flags: -q */
enum state { IDLE, RUNNING, BLOCKED };
BEGIN
{
	s = (enum state)1;
	printf("%d %d %d\n", s == RUNNING, s != IDLE, BLOCKED - s);
	exit(0);
}
