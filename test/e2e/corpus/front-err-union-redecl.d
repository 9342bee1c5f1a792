/* flags: -xerrtags */
union u { int a; }; union u { int b; }; BEGIN { exit(0); }