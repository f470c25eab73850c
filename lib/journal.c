/*
 * journal.c --- see journal.h.
 */
#include "e4time.h"
