/* Workload of test/e2e/builtins.test.ts: main -> outer -> inner -> my_getppid, every function with a frame. */
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
/* getppid through its own syscall instruction (libc's getppid has no frame of its own). */
__attribute__((noinline)) long my_getppid(void) {
  long ret;
  __asm__ volatile ("syscall" : "=a"(ret) : "a"((long)SYS_getppid) : "rcx", "r11", "memory");
  return ret;
}
__attribute__((noinline)) long inner(long v) { return my_getppid() + v; }
__attribute__((noinline)) long outer(long v) { return inner(v * 2) + 1; }
int main(void) {
  long s = 0;
  for (int i = 0; i < 5; i++) { s += outer(4242); usleep(200000); }
  printf("%d\n", s != 0);
  return 0;
}
