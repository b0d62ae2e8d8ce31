/* lineedit — reading what the user types in the interactive terminal, with libedit: line
 * editing (emacs keys), a history kept in a file, multi-line messages (a line ending in a
 * backslash, or Alt-Enter, continues the message), bracketed paste (a pasted block is one
 * piece of the message, newlines included, shown as "[paste #1: 12 lines]" while editing
 * and expanded when the message is sent), and Ctrl-C / resize / quit signals seen through
 * sigflags, and Tab completion through a completer the caller gives (the slash commands).
 * It reads the terminal only while lined_read runs; it never prints anything but the
 * prompt, the line being edited and a completion's candidates. */
#ifndef HEW_CLI_LINEEDIT_H
#define HEW_CLI_LINEEDIT_H

#include <stddef.h>
#include <stdio.h>

typedef struct lined lined;

enum lined_why { LINED_OK, LINED_EOF, LINED_INTERRUPT, LINED_QUIT, LINED_ERROR, LINED_CLEARED };

/* A line editor on in/out (terminals). history_path: the history file ($XDG_STATE_HOME/
 * hew/history), or NULL for none; read now, written after each new entry. NULL when
 * libedit cannot start. */
lined *lined_new(FILE *in, FILE *out, const char *history_path);
void lined_free(lined *l);

/* Read one message. prompt may hold SGR sequences (they take no room). multiline: allow
 * continuation lines. initial (NULL or ""): text already in the line when it starts, as
 * if pasted (text typed while a task ran; several lines become one paste). Returns a new
 * string without the final newline (the caller frees it), or NULL with *why saying why:
 * end of input (Ctrl-D on an empty line), Ctrl-C on an empty line (LINED_INTERRUPT: the
 * caller takes the SIGF_INT flag), Ctrl-C on a line with text (LINED_CLEARED: the text
 * is dropped, the flag already taken), a request to quit (SIGTERM/SIGHUP), or an
 * error. */
char *lined_read(lined *l, const char *prompt, int multiline, const char *initial, int *why);

/* Completion on Tab: fn gets the text before the cursor (len bytes at line) and gives the
 * candidates that may replace its end from *start on (up to cap borrowed strings into out;
 * it returns how many there are, which may be more than cap). One candidate: it is
 * written in, and a blank after it; several: the text grows to their longest common
 * start, or, when it cannot grow, they are listed on a line below and the line is drawn
 * again; none: a beep. Without a completer Tab is an ordinary character. */
typedef size_t (*lined_complete_fn)(void *arg, const char *line, size_t len, size_t *start,
                                    const char **out, size_t cap);
void lined_set_complete(lined *l, lined_complete_fn fn, void *arg);

/* Remember a message in the history (and the file). */
void lined_remember(lined *l, const char *text);

#endif
