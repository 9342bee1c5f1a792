/* flags: -xerrtags */
typedef int foo_t; typedef long foo_t; BEGIN { exit(0); }