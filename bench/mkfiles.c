/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mkfiles.c --- create a tree of files through the kernel, for
 * bench/layouts.sh: the files are made with mkdir(2), open(2), write(2)
 * and close(2) in a loop-mounted filesystem, so the on-disk layout is the
 * kernel's.  Built by the script with cc -O2.
 *
 *   mkfiles DIRS FILES_PER_DIR NAME_LEN DATA_BYTES DATA_EVERY [TOP]
 *
 * Makes DIRS directories d00000... in the current directory, each holding
 * FILES_PER_DIR files named f0000000 padded with 'x' to NAME_LEN bytes
 * (at least 8).  Every DATA_EVERY-th file (0: none) gets DATA_BYTES bytes
 * of data; the others are empty.  With TOP, the DIRS directories are
 * spread over TOP directories t0000... (DIRS / TOP in each), so that no
 * directory holds more than FILES_PER_DIR, DIRS / TOP or TOP names.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long dirs, per, len, bytes, every, top = 0, d, f, n = 0;
	char name[300], data[65536];

	if (argc != 6 && argc != 7) {
		fprintf(stderr,
			"usage: %s DIRS FILES_PER_DIR NAME_LEN "
			"DATA_BYTES DATA_EVERY [TOP]\n",
			argv[0]);
		return 2;
	}
	if (argc == 7)
		top = atol(argv[6]);
	dirs = atol(argv[1]);
	per = atol(argv[2]);
	len = atol(argv[3]);
	bytes = atol(argv[4]);
	every = atol(argv[5]);
	if (len < 8 || len > 255 || bytes < 0 || bytes > (long)sizeof(data) ||
	    top < 0 || (top && dirs % top)) {
		fprintf(stderr, "mkfiles: NAME_LEN 8..255, DATA_BYTES "
				"0..65536, TOP divides DIRS\n");
		return 2;
	}
	memset(data, 'a', sizeof(data));
	for (d = 0; d < dirs; d++) {
		char dn[48];
		int dfd;

		if (top && d % (dirs / top) == 0) {
			snprintf(dn, sizeof(dn), "t%04ld", d / (dirs / top));
			if (mkdir(dn, 0755)) {
				perror(dn);
				return 1;
			}
		}
		if (top)
			snprintf(dn, sizeof(dn), "t%04ld/d%05ld",
				 d / (dirs / top), d);
		else
			snprintf(dn, sizeof(dn), "d%05ld", d);
		if (mkdir(dn, 0755)) {
			perror(dn);
			return 1;
		}
		dfd = open(dn, O_RDONLY | O_DIRECTORY);
		if (dfd < 0) {
			perror(dn);
			return 1;
		}
		for (f = 0; f < per; f++, n++) {
			int fd, k;

			k = snprintf(name, sizeof(name), "f%07ld", f);
			while (k < len)
				name[k++] = 'x';
			name[k] = '\0';
			fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL,
				    0644);
			if (fd < 0) {
				perror(name);
				return 1;
			}
			if (every && bytes && n % every == 0 &&
			    write(fd, data, bytes) != bytes) {
				perror(name);
				return 1;
			}
			close(fd);
		}
		close(dfd);
	}
	return 0;
}
