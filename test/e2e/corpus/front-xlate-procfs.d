/* flags: -q */
BEGIN
{
	printf("%d %d %d\n", curpsinfo->pr_pid == pid, curpsinfo->pr_ppid == ppid, curpsinfo->pr_uid == uid);
	printf("%d %d\n", curpsinfo->pr_gid == gid, curpsinfo->pr_addr == (uintptr_t)curthread);
	printf("%d %d\n", curlwpsinfo->pr_lwpid == tid, curlwpsinfo->pr_onpro == cpu);
	printf("%d %d\n", xlate <psinfo_t *> (curthread)->pr_pid == pid, xlate <psinfo_t> (curthread).pr_nlwp);
	printf("%s %s %c %d\n", curpsinfo->pr_fname, curlwpsinfo->pr_name, curlwpsinfo->pr_sname, curpsinfo->pr_dmodel);
	printf("%d\n", sizeof (psinfo_t) > sizeof (lwpsinfo_t));
	exit(0);
}
