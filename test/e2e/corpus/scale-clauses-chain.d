/* flags: -q */
/* 60 clauses on one probe, each doing string work: too long for one BPF program, loaded as a chain
   of programs in clause order; clause-locals (a count, a string) go on from one link to the next.
   Output as DTrace for Linux prints it. */
dtrace:::BEGIN
{
	this->n = 0;
	this->prev = "none";
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause0-", "node");
	printf("%d %d %s %s %s %s\n", 0, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause1-", "node");
	printf("%d %d %s %s %s %s\n", 1, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause2-", "node");
	printf("%d %d %s %s %s %s\n", 2, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause3-", "node");
	printf("%d %d %s %s %s %s\n", 3, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause4-", "node");
	printf("%d %d %s %s %s %s\n", 4, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause5-", "node");
	printf("%d %d %s %s %s %s\n", 5, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause6-", "node");
	printf("%d %d %s %s %s %s\n", 6, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause7-", "node");
	printf("%d %d %s %s %s %s\n", 7, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause8-", "node");
	printf("%d %d %s %s %s %s\n", 8, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause9-", "node");
	printf("%d %d %s %s %s %s\n", 9, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause10-", "node");
	printf("%d %d %s %s %s %s\n", 10, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause11-", "node");
	printf("%d %d %s %s %s %s\n", 11, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause12-", "node");
	printf("%d %d %s %s %s %s\n", 12, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause13-", "node");
	printf("%d %d %s %s %s %s\n", 13, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause14-", "node");
	printf("%d %d %s %s %s %s\n", 14, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause15-", "node");
	printf("%d %d %s %s %s %s\n", 15, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause16-", "node");
	printf("%d %d %s %s %s %s\n", 16, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause17-", "node");
	printf("%d %d %s %s %s %s\n", 17, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause18-", "node");
	printf("%d %d %s %s %s %s\n", 18, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause19-", "node");
	printf("%d %d %s %s %s %s\n", 19, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause20-", "node");
	printf("%d %d %s %s %s %s\n", 20, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause21-", "node");
	printf("%d %d %s %s %s %s\n", 21, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause22-", "node");
	printf("%d %d %s %s %s %s\n", 22, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause23-", "node");
	printf("%d %d %s %s %s %s\n", 23, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause24-", "node");
	printf("%d %d %s %s %s %s\n", 24, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause25-", "node");
	printf("%d %d %s %s %s %s\n", 25, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause26-", "node");
	printf("%d %d %s %s %s %s\n", 26, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause27-", "node");
	printf("%d %d %s %s %s %s\n", 27, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause28-", "node");
	printf("%d %d %s %s %s %s\n", 28, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause29-", "node");
	printf("%d %d %s %s %s %s\n", 29, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause30-", "node");
	printf("%d %d %s %s %s %s\n", 30, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause31-", "node");
	printf("%d %d %s %s %s %s\n", 31, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause32-", "node");
	printf("%d %d %s %s %s %s\n", 32, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause33-", "node");
	printf("%d %d %s %s %s %s\n", 33, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause34-", "node");
	printf("%d %d %s %s %s %s\n", 34, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause35-", "node");
	printf("%d %d %s %s %s %s\n", 35, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause36-", "node");
	printf("%d %d %s %s %s %s\n", 36, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause37-", "node");
	printf("%d %d %s %s %s %s\n", 37, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause38-", "node");
	printf("%d %d %s %s %s %s\n", 38, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause39-", "node");
	printf("%d %d %s %s %s %s\n", 39, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause40-", "node");
	printf("%d %d %s %s %s %s\n", 40, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause41-", "node");
	printf("%d %d %s %s %s %s\n", 41, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause42-", "node");
	printf("%d %d %s %s %s %s\n", 42, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause43-", "node");
	printf("%d %d %s %s %s %s\n", 43, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause44-", "node");
	printf("%d %d %s %s %s %s\n", 44, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause45-", "node");
	printf("%d %d %s %s %s %s\n", 45, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause46-", "node");
	printf("%d %d %s %s %s %s\n", 46, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause47-", "node");
	printf("%d %d %s %s %s %s\n", 47, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause48-", "node");
	printf("%d %d %s %s %s %s\n", 48, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause49-", "node");
	printf("%d %d %s %s %s %s\n", 49, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause50-", "node");
	printf("%d %d %s %s %s %s\n", 50, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause51-", "node");
	printf("%d %d %s %s %s %s\n", 51, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause52-", "node");
	printf("%d %d %s %s %s %s\n", 52, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause53-", "node");
	printf("%d %d %s %s %s %s\n", 53, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause54-", "node");
	printf("%d %d %s %s %s %s\n", 54, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause55-", "node");
	printf("%d %d %s %s %s %s\n", 55, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause56-", "node");
	printf("%d %d %s %s %s %s\n", 56, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause57-", "node");
	printf("%d %d %s %s %s %s\n", 57, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause58-", "node");
	printf("%d %d %s %s %s %s\n", 58, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	this->n++;
	this->s = strjoin("clause59-", "node");
	printf("%d %d %s %s %s %s\n", 59, this->n, this->prev, substr(this->s, 0, 9), basename(strjoin("/x/", this->s)), dirname(strjoin(this->s, "/y")));
	this->prev = this->s;
}

dtrace:::BEGIN
{
	printf("%d clauses, last %s\n", this->n, this->prev);
	exit(0);
}
