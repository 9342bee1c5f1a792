/* flags: -q */
BEGIN
{
	printf("%d %d\n", &`vfs_read == &vmlinux`vfs_read, &`vfs_read != 0);
	printf("%a\n", (uint64_t)&`vfs_read);
	exit(0);
}
