/*
 * A getppid(2) storm on every online CPU: one process pinned to each, calling getppid in a loop
 * for argv[1] seconds (default 10); exits when they all have.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
	double seconds = argc > 1 ? atof(argv[1]) : 10;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double end = now() + seconds;
	for (long c = 0; c < cpus; c++) {
		if (fork() != 0)
			continue;
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(c, &set);
		sched_setaffinity(0, sizeof(set), &set);
		while (now() < end)
			for (int i = 0; i < 4096; i++)
				syscall(SYS_getppid);
		_exit(0);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
