/* lib_record — a session's recording (hew_options.record_dir, `hew --record DIR`): the
 * folder opened with the session, handed to the provider (net/record.h saves each
 * exchange), and its manifest, session.json, written when the first task starts: what
 * hew replay needs to run the task again the same way. It must never write the API key
 * into the manifest. (The workspace's path is in it: every request names it anyway, and a
 * replay in another folder maps it.) */
#ifndef HEW_LIB_LIB_RECORD_H
#define HEW_LIB_LIB_RECORD_H

#include <stdbool.h>

#include "base/err.h"
#include "task/settings.h"

/* Open dir for s (s->provider.record), or share the recording of dir another session of
 * this process has open. HEW_E_INVALID when dir holds a recording already (of another
 * run). model_info: the session's hew_options.model_info (NULL: none), kept for the
 * manifest. */
hew_code lib_record_open(hew_session *s, const char *dir, const char *model_info,
                         hew_err *err);
/* Close it (NULL recording: nothing). */
void lib_record_close(hew_session *s);
/* Write session.json for the task of id task_id and text, once per recording (its first
 * task). A problem is logged; the task goes on. */
void lib_record_manifest(hew_session *s, const char *text, const char *task_id, bool resumed);

#endif
