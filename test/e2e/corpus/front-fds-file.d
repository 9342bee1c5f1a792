/* flags: -q -c test/e2e/corpus/front-fds-file.sh */
/* fds[] of a traced process: the file a descriptor names, its offset and open flags. */
syscall::write:entry
/pid == $target && fds[arg0].fi_name == "dtrace-front-fds.txt"/
{
	printf("%s %d %d\n", fds[arg0].fi_name, fds[arg0].fi_offset, fds[arg0].fi_oflags & 3);
}
