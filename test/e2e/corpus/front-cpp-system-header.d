/* flags: -C -q */
/*
 * System headers under -C: cpp runs without the C compiler's own macros, so glibc's headers
 * come out without __attribute__ and friends; their function prototypes (with or without
 * extern) declare nothing D stores, and their typedefs of names D has built in (size_t in
 * <stddef.h>) hide D's own.
 */
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>

extern int getpid(void);
int close(int);
extern long hz_of_mine;

BEGIN
{
	printf("%d %d %d %d\n", PROT_READ | PROT_WRITE, MAP_SHARED, O_RDONLY, sizeof (size_t));
#ifdef __GNUC__
	printf("__GNUC__ is defined\n");
#endif
#if defined(__x86_64__) || defined(__aarch64__)
	printf("the architecture is defined\n");
#endif
#ifdef linux
	printf("linux is a macro\n");
#endif
	exit(0);
}
