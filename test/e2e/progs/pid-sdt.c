/* Workload with its own USDT probe in the SystemTap SDT format, written out by hand (no
 * <sys/sdt.h>): each site is a nop and an NT_STAPSDT note holding the nop's address, the address of
 * .stapsdt.base, the semaphore's address, then "provider\0name\0argument specification\0".
 *
 * For each line N on stdin, main() fires demo:::tick-tock N times at one site with (i, running
 * total, 7), then once at a second site in the same function with (-N, total, 7), and prints the
 * total. The sites run only while the semaphore is raised. */
#include <stdio.h>
#include <stdlib.h>

unsigned short demo_tick_semaphore __attribute__((section(".probes"), used)) = 0;

/* Operand 0 is a register (an int: "-4@%eax"-like), operand 1 a stack slot ("8@-24(%rbp)"-like). */
#define DEMO_TICK(value, total)                                            \
  __asm__ __volatile__("990: nop\n"                                        \
                       ".pushsection .note.stapsdt,\"\",\"note\"\n"        \
                       ".balign 4\n"                                       \
                       ".4byte 992f-991f, 994f-993f, 3\n"                  \
                       "991: .asciz \"stapsdt\"\n"                         \
                       "992: .balign 4\n"                                  \
                       "993: .8byte 990b\n"                                \
                       ".8byte _.stapsdt.base\n"                           \
                       ".8byte demo_tick_semaphore\n"                      \
                       ".asciz \"demo\"\n"                                 \
                       ".asciz \"tick__tock\"\n"                           \
                       ".asciz \"-4@%0 8@%1 4@$7\"\n"                      \
                       "994: .balign 4\n"                                  \
                       ".popsection\n"                                     \
                       ".ifndef _.stapsdt.base\n"                          \
                       ".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
                       ".weak _.stapsdt.base\n"                            \
                       ".hidden _.stapsdt.base\n"                          \
                       "_.stapsdt.base: .space 1\n"                        \
                       ".size _.stapsdt.base, 1\n"                         \
                       ".popsection\n"                                     \
                       ".endif\n" ::"r"(value), "m"(total))

static int enabled(void) { return *(volatile unsigned short *)&demo_tick_semaphore != 0; }

int main(void) {
  char line[64];
  while (fgets(line, sizeof line, stdin)) {
    int n = atoi(line);
    long total = 0;
    for (int i = 0; i < n; i++) {
      total += i;
      if (enabled()) DEMO_TICK(i, total);
    }
    if (enabled()) DEMO_TICK(-n, total);
    printf("%ld\n", total);
    fflush(stdout);
  }
  return 0;
}
