/* flags: -q */
/* #pragma D depends_on: a provider or module this kernel has, or a library, is satisfied. */
#pragma D depends_on provider syscall
#pragma D depends_on module vmlinux
#pragma D depends_on library procfs.d
#pragma D attributes Evolving/Evolving/Common provider syscall provider
#pragma D binding "1.0" myinline
#pragma ident "a comment for tools"
#pragma weak something_c_compilers_know

BEGIN
{
	printf("ok\n");
	exit(0);
}
