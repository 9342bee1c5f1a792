/* Linux has no processor sets: pset stays unsupported (chip and lgrp are provided). */
BEGIN
{
	trace(pset);
}
