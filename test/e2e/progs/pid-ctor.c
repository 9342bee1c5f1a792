/* Workload for -x evaltime: a constructor calls target() once before main(), and main() twice. */
#include <stdio.h>

__attribute__((noinline)) int target(int x) { return x + 1; }

__attribute__((constructor)) static void early(void) { target(100); }

int main(void) {
  printf("%d\n", target(1) + target(2));
  return 0;
}
