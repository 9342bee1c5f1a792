/* flags: -q */
/* #pragma D depends_on: a provider or module this kernel has is satisfied (a library may be
   depended on by a library only: front-err-pragma-depends-library.d). */
#pragma D depends_on provider syscall
#pragma D depends_on module vmlinux
#pragma D attributes Evolving/Evolving/Common provider syscall provider
#pragma D binding "1.0" myinline
#pragma ident "a comment for tools"
#pragma weak something_c_compilers_know

BEGIN
{
	printf("ok\n");
	exit(0);
}
