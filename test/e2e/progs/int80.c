/* Makes 32-bit system calls (int $0x80) from a 64-bit process: ia32 getpid is number 20, which
 * is writev in the 64-bit table; the syscall provider must not count it as writev. */
#include <unistd.h>

int main(void) {
	for (int i = 0; i < 5; i++) {
		long ret;
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
	}
	return 0;
}
