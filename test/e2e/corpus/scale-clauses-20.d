/* flags: -q */
/* 20 clauses on one probe, each doing string work, in one program and in clause order.
   Output as DTrace for Linux prints it. */
dtrace:::BEGIN
{
	this->s = strjoin("clause0-", "node-dtrace");
	printf("%d %s %s %d\n", 0, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause1-", "node-dtrace");
	printf("%d %s %s %d\n", 1, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause2-", "node-dtrace");
	printf("%d %s %s %d\n", 2, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause3-", "node-dtrace");
	printf("%d %s %s %d\n", 3, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause4-", "node-dtrace");
	printf("%d %s %s %d\n", 4, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause5-", "node-dtrace");
	printf("%d %s %s %d\n", 5, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause6-", "node-dtrace");
	printf("%d %s %s %d\n", 6, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause7-", "node-dtrace");
	printf("%d %s %s %d\n", 7, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause8-", "node-dtrace");
	printf("%d %s %s %d\n", 8, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause9-", "node-dtrace");
	printf("%d %s %s %d\n", 9, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause10-", "node-dtrace");
	printf("%d %s %s %d\n", 10, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause11-", "node-dtrace");
	printf("%d %s %s %d\n", 11, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause12-", "node-dtrace");
	printf("%d %s %s %d\n", 12, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause13-", "node-dtrace");
	printf("%d %s %s %d\n", 13, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause14-", "node-dtrace");
	printf("%d %s %s %d\n", 14, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause15-", "node-dtrace");
	printf("%d %s %s %d\n", 15, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause16-", "node-dtrace");
	printf("%d %s %s %d\n", 16, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause17-", "node-dtrace");
	printf("%d %s %s %d\n", 17, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause18-", "node-dtrace");
	printf("%d %s %s %d\n", 18, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	this->s = strjoin("clause19-", "node-dtrace");
	printf("%d %s %s %d\n", 19, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), strlen(this->s) > 3);
}

dtrace:::BEGIN
{
	exit(0);
}
