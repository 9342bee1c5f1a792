/* flags: -q */
/* One clause, 60 string operations (strjoin, substr, basename, dirname, string comparison),
   every temporary string reusing a slot of the clause's pool. Output as DTrace for Linux prints it. */
dtrace:::BEGIN
{
  this->a = "/usr/local/lib/node_modules/dtrace";
  this->b = "bin/tool.js";
  this->j0 = strjoin(strjoin(this->a, "/"), substr(this->b, 0));
  printf("%s %s %d\n", basename(this->j0), dirname(this->j0), this->j0 == this->a);
  this->j1 = strjoin(strjoin(this->a, "/"), substr(this->b, 1));
  printf("%s %s %d\n", basename(this->j1), dirname(this->j1), this->j1 == this->a);
  this->j2 = strjoin(strjoin(this->a, "/"), substr(this->b, 2));
  printf("%s %s %d\n", basename(this->j2), dirname(this->j2), this->j2 == this->a);
  this->j3 = strjoin(strjoin(this->a, "/"), substr(this->b, 3));
  printf("%s %s %d\n", basename(this->j3), dirname(this->j3), this->j3 == this->a);
  this->j4 = strjoin(strjoin(this->a, "/"), substr(this->b, 0));
  printf("%s %s %d\n", basename(this->j4), dirname(this->j4), this->j4 == this->a);
  this->j5 = strjoin(strjoin(this->a, "/"), substr(this->b, 1));
  printf("%s %s %d\n", basename(this->j5), dirname(this->j5), this->j5 == this->a);
  this->j6 = strjoin(strjoin(this->a, "/"), substr(this->b, 2));
  printf("%s %s %d\n", basename(this->j6), dirname(this->j6), this->j6 == this->a);
  this->j7 = strjoin(strjoin(this->a, "/"), substr(this->b, 3));
  printf("%s %s %d\n", basename(this->j7), dirname(this->j7), this->j7 == this->a);
  this->j8 = strjoin(strjoin(this->a, "/"), substr(this->b, 0));
  printf("%s %s %d\n", basename(this->j8), dirname(this->j8), this->j8 == this->a);
  this->j9 = strjoin(strjoin(this->a, "/"), substr(this->b, 1));
  printf("%s %s %d\n", basename(this->j9), dirname(this->j9), this->j9 == this->a);
  exit(0);
}
