/* acp_fs — the client's files as hew's file access hook (hew_options.file_io): when the
 * client says in initialize that it can read and write text files (clientCapabilities.fs
 * readTextFile and writeTextFile), read_file and the edits of write_to_file and
 * replace_in_file go through fs/read_text_file and fs/write_text_file, so the model reads
 * the editor's unsaved buffers and its edits land in the editor. hew has checked each
 * path on the disk before (workspace, .clineignore, symlinks, approval): the hook only
 * moves the text. Called on the task's thread, which waits for the client's answer (the
 * main thread routes it; session/cancel stops the wait). */
#include <string.h>

#include "acp.h"

static hew_code fs_read(void *ud, const char *path, hew_file_put_fn put, void *sink, char *err,
                        size_t errlen)
{
    acp_session *s = ud;
    json_t *params = json_pack("{s:s, s:s}", "sessionId", acp_session_id(s), "path", path);
    json_t *result = NULL;
    if (acp_session_call(s, "fs/read_text_file", params, &result, err, errlen) != 0)
        return HEW_E_IO;
    json_t *content = json_object_get(result, "content");
    if (!json_is_string(content)) {
        snprintf(err, errlen, "the client's answer to fs/read_text_file has no \"content\" "
                              "string");
        json_decref(result);
        return HEW_E_PROTOCOL;
    }
    put(sink, json_string_value(content), json_string_length(content));
    json_decref(result);
    return HEW_OK;
}

static hew_code fs_write(void *ud, const char *path, const char *text, size_t len, char *err,
                         size_t errlen)
{
    acp_session *s = ud;
    json_t *params = json_pack("{s:s, s:s}", "sessionId", acp_session_id(s), "path", path);
    json_object_set_new(params, "content", acp_jstr(text, len));
    json_t *result = NULL;
    if (acp_session_call(s, "fs/write_text_file", params, &result, err, errlen) != 0)
        return HEW_E_IO;
    json_decref(result);
    return HEW_OK;
}

int acp_fs_hooks(acp_session *s, const json_t *client_caps, hew_file_io *io)
{
    json_t *fs = json_object_get(client_caps, "fs");
    if (!json_is_true(json_object_get(fs, "readTextFile")) ||
        !json_is_true(json_object_get(fs, "writeTextFile")))
        return 0; /* hew's tools need both: the disk then */
    io->read = fs_read;
    io->write = fs_write;
    io->ud = s;
    return 1;
}
