/* flags: -q */
/* An 8-deep chain of strjoin() cut at strsize: 256 characters, as DTrace for Linux keeps strsize
   characters (output taken from the reference). */
dtrace:::BEGIN {
  this->s = "abcdefghijklmnopqrstuvwxyz0123456789";
  this->s = strjoin(this->s, strjoin("-", this->s));
  this->s = strjoin(this->s, strjoin("+", this->s));
  this->s = strjoin(this->s, strjoin("=", this->s));
  this->s = strjoin(this->s, strjoin("-", this->s));
  this->s = strjoin(this->s, strjoin("+", this->s));
  this->s = strjoin(this->s, strjoin("=", this->s));
  this->s = strjoin(this->s, strjoin("-", this->s));
  this->s = strjoin(this->s, strjoin("+", this->s));
  printf("%d\n%s\n", strlen(this->s), this->s);
  exit(0);
}
