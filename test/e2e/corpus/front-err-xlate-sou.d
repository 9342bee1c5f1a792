/* flags: -xerrtags */
translator int < int x > { a = x; };
BEGIN { exit(0); }
