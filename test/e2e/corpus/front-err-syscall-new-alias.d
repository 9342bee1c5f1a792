/* flags: -xerrtags */
/*
 * Linux names x86_64's stat system call after its kernel function, newstat: a description of
 * syscall::stat matches nothing, and the message says what the call is named here.
 */
syscall::stat:entry
{
	trace(arg0);
}
