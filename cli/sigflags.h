/* sigflags — the interactive terminal's signals as flags: SIGINT (Ctrl-C), SIGWINCH (a
 * resize), SIGTERM and SIGHUP (leave). The handlers only set a flag; every blocking wait
 * of the terminal's thread (poll) returns with EINTR and looks at the flags. Installed
 * without SA_RESTART for that reason. Never does anything else in a handler. */
#ifndef HEW_CLI_SIGFLAGS_H
#define HEW_CLI_SIGFLAGS_H

enum { SIGF_INT, SIGF_WINCH, SIGF_QUIT, SIGF_COUNT };

/* Install the handlers (once). */
void sigflags_install(void);
/* Restore the handlers that were there before. */
void sigflags_restore(void);
/* Whether the flag is set; clears it. */
int sigflags_take(int which);
/* Whether the flag is set; leaves it. */
int sigflags_peek(int which);
/* Block the four signals in the calling thread (*old gets the previous mask), so threads
 * started next (the task's) never receive them; undo with sigflags_unblock(old). */
void sigflags_block(void *old_sigset);
void sigflags_unblock(const void *old_sigset);

#endif
