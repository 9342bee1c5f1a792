/* flags: -xerrtags */
/* _stext has an address but BTF describes no type for it. */
BEGIN { trace(vmlinux`_stext); }
