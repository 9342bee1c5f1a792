/* Reading a thread-local that was never assigned or declared is a compile error. */
BEGIN
{
	trace(self->never);
}
