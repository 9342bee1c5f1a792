/* flags: -xerrtags */
struct o { int a; };
translator struct o < int x > { a = x; };
translator struct o < int y > { a = y; };
BEGIN { exit(0); }
