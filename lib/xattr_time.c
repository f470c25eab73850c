/* xattr_time.c --- placeholder: being written. */
#include "config.h"
#include "xsource.h"
