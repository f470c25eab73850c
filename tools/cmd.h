/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd.h --- what the commands of the e4time binary share, one header
 * per concern; a command file includes this umbrella.
 */
#ifndef E4TIME_TOOL_H
#define E4TIME_TOOL_H

#include <stdio.h>
#include <getopt.h>
#include <signal.h>

#include "lib/e4time.h"

#include "exitcodes.h"	  /* exit statuses and conditions (exit_status.c) */
#include "cmdtab.h"	  /* the command table: struct cmdinfo, CMD_* */
#include "opts.h"	  /* common and write options, option parsers */
#include "diag.h"	  /* diagnostics, warnings, progress, time text */
#include "evidence.h"	  /* the IMAGE argument: container, volume, image */
#include "writecmd.h"	  /* refusals, undo files, stopping on a signal */
#include "journal_open.h" /* the journal loaded, its features */
#include "context.h"	  /* the command context and the dispatcher */

#endif
