/* flags: -q */
/* strtok(): leading delimiters skipped, a NULL string goes on where the last call stopped,
   the delimiters may change between calls, and no token left is NULL. (Issue #5's subroutines;
   not destructive, filed with this area's cases.) */
BEGIN
{
	s = ",,ab,cde;,f,";
	printf("[%s]\n", strtok(s, ","));
	printf("[%s]\n", strtok((char *)0, ","));
	printf("[%s]\n", strtok((char *)0, ",;"));
	printf("[%d]\n", strtok((char *)0, ",") == (char *)0);
	printf("[%s]\n", strtok("  hello world", " "));
	printf("[%d]\n", strtok("abc", "cba") == (char *)0);
	exit(0);
}
