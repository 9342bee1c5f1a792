/* print() of an aggregation is an error. */
BEGIN { @a = count(); print(@a); exit(0); }
