/* flags: -q */
/*
 * A predicate may read a variable that only its own clause's actions assign: the actions are
 * typed first, as dt_cook_clause does, so the first firing sees it unset.
 */
tick-1ms
/!self->seen && first[0] == NULL && count_of_ticks == 0/
{
	self->seen = 1;
	first[0] = "first";
	count_of_ticks = 1;
	printf("%s %d\n", first[0], count_of_ticks);
}

tick-1ms
/self->seen/
{
	exit(0);
}
