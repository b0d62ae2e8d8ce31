/* file_edit — what write_to_file and replace_in_file share: reading the current file,
 * line-ending detection and conversion, and the common end of an edit (approval with a
 * unified diff, the atomic write, the result carrying the final content). It must never
 * write before the user (or the settings) approved, never leave half a file (the write
 * is atomic), and never change a file's line-ending style. With the front end's file
 * access (tool_env.file_read / file_write, an editor's buffers) the text is read from and
 * written to the front end instead, after the same checks. */
#ifndef HEW_TOOLS_FILE_EDIT_H
#define HEW_TOOLS_FILE_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/buf.h"
#include "base/limits.h"
#include "tools/tool.h"
#include "tools/workspace.h"

#define FILE_EDIT_MAX LIMITS_TOOL_CONTENT /* larger files are not edited */
#define FILE_EDIT_SHOW_MAX ((size_t)400 * 1024)  /* file content shown in results */

/* The file as it is before the edit. */
typedef struct file_before {
    bool exists;
    char *text;  /* LF line endings; "" when new; owned */
    size_t len;
    bool crlf;   /* the file's lines end in CRLF (most of them) */
} file_before;

/* Read wp's file for editing (ws_open_file: no symlink followed). HEW_OK with
 * exists=false when there is no file. A hard link of a file ig (.clineignore) blocks is
 * refused. Errors are results for the model (already filled in out, mistake counted):
 * returns false then. */
bool file_before_load(tool_env *env, const ws_path *wp, const ignore *ig, file_before *fb,
                      tool_result *out);
void file_before_release(file_before *fb);

/* Replace every CRLF by LF in place; returns the new length. */
size_t file_edit_to_lf(char *s, size_t len);

/* Ask approval (tool "editedExistingFile" or "newFileCreated", with the unified diff
 * and, for a new file, its content; group "control" with "controlFile" in the data when
 * wp is one of hew's control files, else "edit"), then write new_lf (LF endings;
 * converted to CRLF when the file used them) atomically with ws_write, creating missing
 * directories, drop the file from the read cache, and fill out with the saved content.
 * Returns HEW_OK or HEW_E_ABORTED; a denial or a write failure is a result in out (for
 * a control file the denial says why). */
hew_code file_edit_finish(tool_env *env, const ws_path *wp, const file_before *fb,
                          const char *new_lf, size_t new_len, tool_result *out);

/* Append "<tag path="rel">\ncontent\n</tag>" with content cut at FILE_EDIT_SHOW_MAX (on a
 * line boundary, with a note) and invalid UTF-8 replaced. */
void file_edit_put_content(buf *out, const char *tag, const char *rel, const char *text,
                           size_t len);

#endif
