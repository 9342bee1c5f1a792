/* flags: -xerrtags */
BEGIN { trace(`no_such_kernel_symbol); }
