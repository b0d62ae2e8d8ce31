/* fileio — the file tools' access to text files through the front end
 * (hew_options.file_io, copied into the session's settings): tool_env's file_read and
 * file_write call the embedder's hook with the path the tool checked, collect what it
 * hands over (at most the tool's cap) and turn its failures into messages for the model.
 * Without a hook the env's functions stay NULL and the tools use the disk. */
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "task/task.h"

/* What the hook's put calls fill: at most max bytes (more is remembered as too big). */
typedef struct sink {
    buf b;
    size_t max;
    bool over;
} sink;

static void put(void *ud, const char *bytes, size_t n)
{
    sink *k = ud;
    if (k->over || !n)
        return;
    if (!bytes || k->b.len + n > k->max) {
        k->over = true;
        return;
    }
    buf_append(&k->b, bytes, n);
}

static hew_code env_file_read(tool_env *env, const char *abs, size_t max, char **text,
                              size_t *len, hew_err *err)
{
    hew_task *t = env->task;
    const hew_file_io *io = &t->settings->file_io;
    *text = NULL;
    *len = 0;
    sink k = { BUF_INIT(max), max, false };
    char msg[HEW_ERR_MSG_MAX] = "";
    hew_code rc = io->read(io->ud, abs, put, &k, msg, sizeof msg);
    if (rc == HEW_OK && k.over)
        rc = hew_err_set(err, HEW_E_TOOBIG, "%s is larger than %zu bytes", abs, max);
    else if (rc == HEW_OK && k.b.err)
        rc = hew_err_set(err, k.b.err, "out of memory reading %s", abs);
    else if (rc != HEW_OK)
        hew_err_set(err, rc, "the editor could not read %s: %s", abs,
                    *msg ? msg : hew_strerror(rc));
    if (rc != HEW_OK) {
        buf_release(&k.b);
        return rc;
    }
    *len = k.b.len;
    *text = buf_detach(&k.b, NULL); /* NUL-terminated; "" when the file is empty */
    if (!*text)
        return hew_err_set(err, HEW_E_NOMEM, "out of memory reading %s", abs);
    return HEW_OK;
}

static hew_code env_file_write(tool_env *env, const char *abs, const char *data, size_t len,
                               hew_err *err)
{
    hew_task *t = env->task;
    const hew_file_io *io = &t->settings->file_io;
    char msg[HEW_ERR_MSG_MAX] = "";
    hew_code rc = io->write(io->ud, abs, data ? data : "", len, msg, sizeof msg);
    if (rc != HEW_OK)
        hew_err_set(err, rc, "the editor could not write %s: %s", abs,
                    *msg ? msg : hew_strerror(rc));
    return rc;
}

void task_file_io_init(hew_task *t)
{
    bool on = t->settings->file_io.read && t->settings->file_io.write;
    t->env.file_read = on ? env_file_read : NULL;
    t->env.file_write = on ? env_file_write : NULL;
}
