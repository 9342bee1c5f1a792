/* flags: -xerrtags */
struct fwd;
translator struct fwd < int x > { a = x; };
BEGIN { exit(0); }
