/* flags: -xerrtags */
a:b:c:d:e:f
{
	trace(1);
}
