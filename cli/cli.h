/* cli — what the files of the `hew` command share. Only include/hew.h is used below this. */
#ifndef HEW_CLI_H
#define HEW_CLI_H

/* `hew debug sse ...` (argv starts after "sse"); returns the exit status. */
int cli_debug_sse(int argc, char **argv);

/* `hew debug decode ...` (argv starts after "decode"); returns the exit status. */
int cli_debug_decode(int argc, char **argv);

/* `hew debug parse ...` (argv starts after "parse"); returns the exit status. */
int cli_debug_parse(int argc, char **argv);

/* Read a whole file into a new NUL-terminated string the caller frees; prints an error and
 * returns NULL on failure. */
char *cli_read_file(const char *path);

#endif
