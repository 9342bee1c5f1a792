BEGIN
{
	setopt();
}
