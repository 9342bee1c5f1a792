/* flags: -q */
/* Agrees with the reference DTrace (output, error tag and message, exit status). */
BEGIN
{
	this->t = "q";
	this->t = 0;
	printf("assigned\n");
	exit(0);
}
