/* xmlcall — the streaming scanner for XML-style tool calls in the model's text
 * (`<tool><param>value</param></tool>`), which appends text and tool_use blocks to a
 * blocklist as the text arrives. It gives the same blocks as Cline's parseAssistantMessageV2
 * run on the whole text, but keeps its position and touches each byte a bounded number of
 * times (a tag matcher, no re-scanning). It must never re-parse, never look at a byte it
 * has passed again (beyond a held-back tag of at most TAGSET_NAME_MAX+2 bytes), and never
 * do I/O.
 *
 * Rules (from the reference algorithm):
 *   - outside a tool, `<name>` for a tool name starts a tool; the text before it becomes a
 *     text block, trimmed, dropped when empty; any other tag is plain text;
 *   - inside a tool, `<param>` for a parameter name opens a parameter whose value is
 *     opaque up to its own `</param>` (no other tag is seen inside), and is trimmed;
 *     `</tool>` closes the tool; anything else inside a tool is dropped;
 *   - a repeated parameter keeps its first position and takes the last value;
 *   - the rule tool (write_to_file) takes for its rule parameter (content) the text from the
 *     first `<content>` to the LAST `</content>` of the whole tool, trimmed, when the tool
 *     closes (so files that contain `</content>` survive);
 *   - at the end, an unclosed tool stays partial with the parameters seen so far (an open
 *     value runs to the end, trimmed); trailing text stays partial.
 *
 * Streaming view (what a reader sees between feeds):
 *   - a possible tag at the very end (`<rea`, `</pa`) is held back, shown neither as text
 *     nor as value, and resolved by the next feed (or by finish, as plain text);
 *   - text and values are shown trimmed as the final result will be; an unfinished UTF-8
 *     character is never shown;
 *   - write_to_file's content grows while its parameter is open; once a `</content>` has
 *     been seen, it shows the text up to the last `</content>` seen so far (what the tool
 *     would hold if it closed now) and grows at each further `</content>`. If the tool
 *     never closes, finish sets it back to what the reference gives an unclosed tool.
 *
 * Ownership: the scanner borrows the blocklist and the two tag sets, which must outlive
 * it; xmlcall_release frees only its own state. */
#ifndef HEW_PARSE_XMLCALL_H
#define HEW_PARSE_XMLCALL_H

#include <stdbool.h>
#include <stddef.h>

#include "parse/block.h"
#include "parse/tagset.h"
#include "parse/tval.h"

enum xmlcall_state { XS_TEXT, XS_TOOL, XS_PARAM };
enum xmlcall_obs { OBS_OFF, OBS_SEEK, OBS_INPARAM, OBS_CAPTURE };

typedef struct xmlcall {
    blocklist *out;
    const tagset *tools, *params;
    char rule_tool[TAGSET_NAME_MAX + 1];   /* "" = no rule */
    char rule_open[TAGSET_NAME_MAX + 3];   /* "<content>" */
    char rule_close[TAGSET_NAME_MAX + 4];  /* "</content>" */
    size_t rule_open_len, rule_close_len;
    size_t max;

    enum xmlcall_state st;
    tagm m;               /* m.len > 0: a candidate tag is held */
    tval seg;             /* text seen before its block exists */
    block *text;          /* the open text block, or NULL */
    block *tool;          /* the open tool block, or NULL */
    size_t param;         /* index of the open parameter in tool->params */
    tval *target;         /* where the open parameter's bytes go */
    char close[TAGSET_NAME_MAX + 2];       /* "/name" of what the next close tag is */
    size_t close_len;

    /* The write_to_file rule, watching the raw bytes of the open rule tool. */
    bool rule;            /* the open tool is the rule tool */
    enum xmlcall_obs obs;
    size_t pos;           /* bytes of rule_open / rule_close matched */
    tval *cap;            /* raw capture after the first `<content>` (MARKED) */
    bool cap_owned;       /* cap is ours (content first seen inside another value) */
    bool cap_marked;      /* a `</content>` was seen after it */
    size_t cand;          /* tval_mark_point at the '<' of the candidate close */
    size_t slot;          /* the content parameter when the capture is its value */
    size_t first_len;     /* its value at its first `</content>` */
} xmlcall;

/* tools, params: the tag sets (borrowed). rule_tool/rule_param: the last-close rule
 * ("write_to_file", "content"), NULL for none; must be valid tag names. */
void xmlcall_init(xmlcall *x, blocklist *out, const tagset *tools, const tagset *params,
                  const char *rule_tool, const char *rule_param, size_t max_bytes);
void xmlcall_release(xmlcall *x);

/* Scan the next bytes of the text. HEW_E_NOMEM / HEW_E_TOOBIG from a buffer. */
hew_code xmlcall_feed(xmlcall *x, const char *s, size_t n);

/* End of the text: resolve what is held back; blocks end as the reference leaves them. */
hew_code xmlcall_finish(xmlcall *x);

/* End the open text block now (a native tool call arrived): it becomes complete, and text
 * that follows starts a new block. Does nothing inside a tool. */
void xmlcall_break_text(xmlcall *x);

/* Bytes held back as a possible tag (0 when none). */
size_t xmlcall_held(const xmlcall *x);

#endif
