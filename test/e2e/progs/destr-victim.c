/* A target for destructive actions: prints its pid and the address of a buffer, then calls
 * getppid() and prints the buffer every 20 ms until a signal ends it. */
#include <stdio.h>
#include <unistd.h>

static char buf[32] = "original";

int main(void) {
	printf("%d %p\n", (int)getpid(), (void *)buf);
	fflush(stdout);
	for (;;) {
		getppid();
		printf("%s\n", buf);
		fflush(stdout);
		usleep(20000);
	}
}
