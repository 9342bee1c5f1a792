/* w N: makes N getppid(2) system calls (default 1) and exits; -c tests trace it as $target. */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	return argc > 2 ? atoi(argv[2]) : 0;
}
