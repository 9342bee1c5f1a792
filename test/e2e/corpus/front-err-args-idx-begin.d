/* flags: -xerrtags */
BEGIN { trace(args[0]); }
