/* flags: -x amin=Stable/Sturdy */
BEGIN
{
}
