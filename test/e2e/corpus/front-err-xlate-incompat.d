/* flags: -xerrtags */
struct o { int a; };
translator struct o < int x > { a = "str"; };
BEGIN { exit(0); }
