/* json — helpers over jansson: parsing with errors a user can act on, reading typed values
 * by path with errors that name the full path ("scenario.responses[2].status: missing",
 * "messages[3].content: expected a string, got a number"), and building/dumping without
 * ignoring errors. It must never print, exit, or silently drop data: a value that cannot
 * be read or built is an error value, and strings that are not valid UTF-8 are either
 * refused or visibly repaired (U+FFFD), never cut.
 *
 * Ownership: jansson's reference counting applies. Everything returned through a
 * `json_t **` or `json_ref` by a getter is BORROWED from the document (valid while the
 * document lives and that part is not modified); `const char *` strings likewise.
 * json_parse and json_build hand out a NEW reference the caller json_decref()s.
 *
 * Paths: keys separated by '.', array indices in brackets: "a.b[3].c", "[0]", "a[1][2]".
 * The empty path "" names the value itself. Keys in a path cannot contain '.', '[' or ']'
 * (such keys can still be read with json_ref_key). A malformed path is a bug in the
 * caller and gives HEW_E_INTERNAL.
 *
 * Errors of the getters:
 *   HEW_E_NOTFOUND  the value (or a container on the way to it) is missing, or an index
 *                   is past the end; the message names the first missing component;
 *   HEW_E_INVALID   the value, or a container on the way, has the wrong type.
 *
 * Integers are 64-bit (jansson's json_int_t is long long) and round-trip exactly; JSON
 * numbers outside the int64 range are refused by the parser. */
#ifndef HEW_BASE_JSON_H
#define HEW_BASE_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/err.h"

/* ---- parsing ---------------------------------------------------------------------- */

/* Parse s[0..n) (any JSON value at the top level; \u0000 inside strings is refused).
 * On success *out is a new reference. On failure *out is NULL and err says HEW_E_INVALID
 * "<what>: invalid JSON at line L, column C: <jansson's reason>". what names the input
 * for the user ("response body of POST /v1/messages", "scenario file x.json"). */
hew_code json_parse(const char *s, size_t n, const char *what, json_t **out, hew_err *err);

/* ---- reading by path ---------------------------------------------------------------- */

/* The value at path below root, or NULL when anything on the way is missing, has the
 * wrong type, or the path is malformed. Borrowed. */
json_t *json_path_get(const json_t *root, const char *path);

#define JSON_PATH_MAX 256

/* A value together with the path that led to it, so that nested reads (loops over arrays)
 * report full paths. v is borrowed and may be NULL (a missing optional value). path is the
 * display path, e.g. "scenario.responses[2]"; a path longer than JSON_PATH_MAX-1 bytes is
 * shortened with "..." (it is only used in messages). */
typedef struct json_ref {
    json_t *v;
    char path[JSON_PATH_MAX];
} json_ref;

/* A reference to a document's top-level value. name prefixes every reported path
 * ("scenario" gives "scenario.responses[2]"); NULL or "" for none. */
json_ref json_ref_root(const json_t *v, const char *name);

/* The child of ref at key / index (v is NULL when ref->v is not an object / array or the
 * child is missing); the path is extended either way. */
json_ref json_ref_key(const json_ref *ref, const char *key);
json_ref json_ref_index(const json_ref *ref, size_t i);

/* Typed getters: read the value at path below ref (path "" = ref itself).
 * Required forms fail when it is missing (HEW_E_NOTFOUND) or has the wrong type
 * (HEW_E_INVALID); JSON null counts as present, with the wrong type.
 * On failure *out is left unchanged. Strings are borrowed and NUL-terminated. */
hew_code json_get_string(const json_ref *ref, const char *path, const char **out, hew_err *err);
hew_code json_get_int(const json_ref *ref, const char *path, int64_t *out, hew_err *err);
hew_code json_get_bool(const json_ref *ref, const char *path, bool *out, hew_err *err);
/* Any JSON number (integer or real). */
hew_code json_get_number(const json_ref *ref, const char *path, double *out, hew_err *err);
hew_code json_get_object(const json_ref *ref, const char *path, json_ref *out, hew_err *err);
hew_code json_get_array(const json_ref *ref, const char *path, json_ref *out, hew_err *err);

/* Optional forms: a missing value (or JSON null, or a missing container on the way) gives
 * def and HEW_OK; a present value of the wrong type still fails with HEW_E_INVALID.
 * json_opt_object / json_opt_array give out->v == NULL when missing. */
hew_code json_opt_string(const json_ref *ref, const char *path, const char *def,
                         const char **out, hew_err *err);
hew_code json_opt_int(const json_ref *ref, const char *path, int64_t def, int64_t *out,
                      hew_err *err);
hew_code json_opt_bool(const json_ref *ref, const char *path, bool def, bool *out,
                       hew_err *err);
hew_code json_opt_number(const json_ref *ref, const char *path, double def, double *out,
                         hew_err *err);
hew_code json_opt_object(const json_ref *ref, const char *path, json_ref *out, hew_err *err);
hew_code json_opt_array(const json_ref *ref, const char *path, json_ref *out, hew_err *err);

/* "a string", "an object", "a number", "a boolean", "null" ("nothing" for NULL), for messages. */
const char *json_type_phrase(const json_t *v);

/* ---- building --------------------------------------------------------------------- */

/* A new string value from s[0..n); bytes that are not valid UTF-8 are replaced by U+FFFD
 * (jansson would refuse them). NULL only when memory runs out. Embedded NULs are kept. */
json_t *json_string_lossy(const char *s, size_t n);

/* json_pack with an error value: *out gets a new reference, or NULL and err says
 * "cannot build <what>: <jansson's reason>" (HEW_E_INVALID; e.g. a NULL or non-UTF-8
 * string for "s"). Like json_pack, "o" arguments are stolen, also on failure. */
hew_code json_build(json_t **out, const char *what, hew_err *err, const char *fmt, ...);

/* Sticky setters (see buf.h for the idea): when *st is HEW_OK, set obj[key] = v /
 * append v to arr; otherwise do nothing. v is always stolen (dropped when not used).
 * A NULL obj/arr/v or a failed set records HEW_E_NOMEM (or HEW_E_INVALID for a key that
 * is not UTF-8) in *st. Build freely, then check st once. */
void json_obj_put(json_t *obj, const char *key, json_t *v, hew_code *st);
void json_arr_push(json_t *arr, json_t *v, hew_code *st);

/* Append v as compact JSON to out (jansson flags such as JSON_SORT_KEYS or
 * JSON_ENSURE_ASCII may be added; JSON_COMPACT and JSON_ENCODE_ANY are always on).
 * Writes straight into out, no intermediate string. Failures become out's sticky error
 * (HEW_E_TOOBIG from the cap, HEW_E_NOMEM, HEW_E_INVALID when v is NULL or jansson
 * refuses); on failure out's length is restored to what it was. */
void json_dump_into(const json_t *v, buf *out, size_t flags);

/* Append s[0..n) as a JSON string literal (quotes included) to out: '"', '\\' and
 * control characters escaped, everything else copied as is (runs at memcpy speed: this is
 * on the streaming path); bytes that are not valid UTF-8 become U+FFFD. */
void json_escape_into(buf *out, const char *s, size_t n);

#endif
