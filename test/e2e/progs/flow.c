/* Workload for -F: outer() calls inner() twice, on one CPU so that every record lands in one
 * buffer in the order of the calls. */
#define _GNU_SOURCE
#include <sched.h>

__attribute__((noinline)) int inner(int x) { return x + 1; }
__attribute__((noinline)) int outer(int x) { return inner(x) + inner(x + 1); }

int main(void) {
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof set, &set);
	return outer(1) == 5 ? 0 : 1;
}
