/* Workload for the pid provider tests: for each line N read from stdin, call target() N times and
 * print the sum of its results; exit at end of input. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int target(int x) { return x * 2; }

int main(void) {
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    int n = atoi(line), sum = 0;
    for (int i = 0; i < n; i++) sum += target(i);
    printf("%d\n", sum);
    fflush(stdout);
  }
  return 0;
}
