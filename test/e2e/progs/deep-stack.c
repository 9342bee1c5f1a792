/*
 * For the stack-depth tests: recurses argv[1] frames deep (default 200) in down(), then makes one
 * getppid(2) call inline (so the frame walk starts in down()) and lingers 300 ms so that dtrace
 * can read its mappings before it exits.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

long __attribute__((noinline)) down(long n) {
	long r;
	if (n > 0)
		return down(n - 1) + 1;
	__asm__ volatile ("syscall" : "=a"(r) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
	return r;
}

int main(int argc, char **argv) {
	long r = down(argc > 1 ? atol(argv[1]) : 200);
	usleep(300000);
	return r == 0;
}
