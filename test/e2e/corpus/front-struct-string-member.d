/* flags: -q */
/* A string member in a struct declaration, as translator output structs declare them. */
struct kind2str {
	string name;
	int code;
};

translator struct kind2str < int K > {
	name = K == 1 ? "one" : K == 2 ? "two" : "many";
	code = K;
};

BEGIN
{
	printf("%s %s %s\n", xlate <struct kind2str *>(1)->name,
	    xlate <struct kind2str *>(2)->name, xlate <struct kind2str *>(7)->name);
	exit(0);
}
