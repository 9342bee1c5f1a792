BEGIN
{
	trace(mutex_owned(0));
}
