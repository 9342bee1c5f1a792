/* flags: -q */
/* setopt("aggsortrev") while tracing reverses the order the aggregations print in at exit. */
BEGIN
{
	@a["x"] = count();
	@a["y"] = count(); @a["y"] = count();
	@a["z"] = count();
	@a["w"] = count(); @a["w"] = count(); @a["w"] = count();
}
BEGIN
{
	setopt("aggsortrev");
	exit(0);
}
