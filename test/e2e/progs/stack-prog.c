/*
 * For the stack tests: makes N getppid(2) calls (argv[1], default 3) from ask_parent(), called
 * by main(), then spins in spin_here() for argv[2] ms (default 0) and lingers 300 ms so that
 * dtrace can read its mappings before it exits. The system call is made inline: a libc wrapper is
 * a leaf without a frame of its own, so a frame-pointer walk from inside it skips its caller.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;

long __attribute__((noinline)) ask_parent(void) {
	long r;
	__asm__ volatile ("syscall" : "=a"(r) : "0"((long)SYS_getppid) : "rcx", "r11", "memory");
	return r;
}

static long ms_since(const struct timespec *t0) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

void __attribute__((noinline)) spin_here(long ms) {
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ms_since(&t0) < ms)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 3;
	long spin = argc > 2 ? atol(argv[2]) : 0;
	for (int i = 0; i < n; i++)
		ask_parent();
	spin_here(spin);
	usleep(300000);
	return 0;
}
