/* flags: -xerrtags */
struct o { int a; };
translator struct o < int x > { b = x; };
BEGIN { exit(0); }
