/* fake_validate — the strict request checks of hew-fake-provider (fake-provider/
 * validate*.c, compiled into this test): for every rule of the four protocols one request
 * that passes and one crafted violation that gets the API's exact message (and OpenAI
 * "param"); the 400 bodies byte for byte; the protocol chosen by path; the fake's
 * thinking signatures; and the requests hew really builds (api_build, all four
 * protocols) pass, while the shape of issue #16 — a tool call with no result before the
 * next user message — is refused by each.
 *
 * Requests are written with ' for " (J() swaps them) to stay readable. Never starts a
 * process or opens a socket (the e2e test fake_provider.sh checks the served 400s). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../fake-provider/validate.h"
#include "api/message.h"
#include "api/provider.h"
#include "api/request.h"
#include "check.h"

/* ---- request text helpers --------------------------------------------------------- */

static json_t *J(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    json_error_t je;
    json_t *j = json_loads(s, JSON_DECODE_ANY, &je);
    if (!j && strcmp(text, "not json") != 0)
        fprintf(stderr, "bad test JSON (%s): %s\n", je.text, s);
    free(s);
    return j;
}

typedef struct vcase {
    validate_proto proto;
    const char *what;
    const char *request;   /* ' for " */
    const char *message;   /* NULL: valid; else the exact message */
    const char *param;     /* OpenAI param ("" = null); NULL: not checked */
    bool prefix;           /* message is a prefix (the long thinking text) */
} vcase;

static void run_case(const vcase *c)
{
    check_current = c->what;
    json_t *body = J(c->request);
    if (!body && strcmp(c->request, "not json") != 0) {
        check_fail(__FILE__, __LINE__, "%s: the test's JSON does not parse", c->what);
        return;
    }
    validate_violation v;
    memset(&v, 0, sizeof v);
    bool bad = validate_request(c->proto, body, &v);
    if (!c->message) {
        if (bad)
            check_fail(__FILE__, __LINE__, "%s: valid request refused: %s", c->what,
                       v.message);
        CHECK(!bad);
    } else {
        if (!bad)
            check_fail(__FILE__, __LINE__, "%s: violation not found", c->what);
        else if (c->prefix ? strncmp(v.message, c->message, strlen(c->message)) != 0
                           : strcmp(v.message, c->message) != 0)
            check_fail(__FILE__, __LINE__, "%s:\n  got  %s\n  want %s", c->what, v.message,
                       c->message);
        if (bad && c->param && strcmp(v.param, c->param) != 0)
            check_fail(__FILE__, __LINE__, "%s: param \"%s\", want \"%s\"", c->what, v.param,
                       c->param);
        check_count++;
    }
    json_decref(body);
}

/* ---- Anthropic -------------------------------------------------------------------- */

#define TOOLS "'tools':[{'name':'read_file','input_schema':{'type':'object'}}]"
#define A(msgs) "{'model':'claude-sonnet-4-5','max_tokens':100," TOOLS ",'messages':[" msgs "]}"
#define AT(extra, msgs)                                                                  \
    "{'model':'claude-sonnet-4-5','max_tokens':100," TOOLS "," extra ",'messages':[" msgs "]}"
#define A_NO_TOOLS(msgs) "{'model':'claude-sonnet-4-5','max_tokens':100,'messages':[" msgs "]}"
#define U(blocks) "{'role':'user','content':[" blocks "]}"
#define AS(blocks) "{'role':'assistant','content':[" blocks "]}"
#define T(s) "{'type':'text','text':'" s "'}"
#define TC(s) "{'type':'text','text':'" s "','cache_control':{'type':'ephemeral'}}"
#define TU(id) "{'type':'tool_use','id':'" id "','name':'read_file','input':{}}"
#define TR(id) "{'type':'tool_result','tool_use_id':'" id "','content':'ok'}"
#define TH(text, sig) "{'type':'thinking','thinking':'" text "','signature':'" sig "'}"
#define THINK_ON "'thinking':{'type':'enabled','budget_tokens':1024}"
#define MISSING_RESULT(i, ids)                                                           \
    "messages." i ": `tool_use` ids were found without `tool_result` blocks immediately "  \
    "after: " ids ". Each `tool_use` block must have a corresponding `tool_result` block " \
    "in the next message."
#define STRAY_RESULT(loc, id)                                                            \
    "messages." loc ": unexpected `tool_use_id` found in `tool_result` blocks: " id        \
    ". Each `tool_result` block must have a corresponding `tool_use` block in the "       \
    "previous message."

/* validate_sign_thinking("Think.") — the fake's own signature of that text. */
#define SIG_THINK "sig_fake_fbf5b65cf27ea271"

static const vcase anthropic_cases[] = {
    {VALIDATE_ANTHROPIC, "a: one user message", A(U(T("hi"))), NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: string content", A("{'role':'user','content':'hi'}"), NULL, NULL,
     false},
    {VALIDATE_ANTHROPIC, "a: a tool loop",
     A(U(T("hi")) "," AS(T("x") "," TU("t1") "," TU("t2")) "," U(TR("t1") "," TR("t2") ","
                                                                     T("more"))),
     NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: results then a second user message (one turn)",
     A(U(T("hi")) "," AS(TU("t1")) "," U(TR("t1")) "," U(T("more"))), NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: a blank block beside real text", A(U(T("  ") "," T("real"))),
     NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: an empty final assistant prefill",
     A(U(T("hi")) ",{'role':'assistant','content':[]}"), NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: a prefill", A(U(T("hi")) "," AS(T("Sure"))), NULL, NULL, false},
    /* required fields */
    {VALIDATE_ANTHROPIC, "a: not JSON", "not json",
     "The request body is not valid JSON: expected an object", NULL, false},
    {VALIDATE_ANTHROPIC, "a: no model", "{'max_tokens':1,'messages':[" U(T("hi")) "]}",
     "model: Field required", NULL, false},
    {VALIDATE_ANTHROPIC, "a: no max_tokens", "{'model':'m','messages':[" U(T("hi")) "]}",
     "max_tokens: Field required", NULL, false},
    {VALIDATE_ANTHROPIC, "a: no messages", "{'model':'m','max_tokens':1}",
     "messages: Field required", NULL, false},
    /* roles */
    {VALIDATE_ANTHROPIC, "a: a system role", A("{'role':'system','content':'x'}," U(T("hi"))),
     "messages.0.role: Input should be 'user' or 'assistant'", NULL, false},
    {VALIDATE_ANTHROPIC, "a: first message from the assistant", A(AS(T("hi")) "," U(T("x"))),
     "messages: first message must use the \"user\" role", NULL, false},
    /* content */
    {VALIDATE_ANTHROPIC, "a: an empty message in the middle",
     A(U(T("hi")) ",{'role':'assistant','content':[]}," U(T("x"))),
     "messages.1: all messages must have non-empty content except for the optional final "
     "assistant message",
     NULL, false},
    {VALIDATE_ANTHROPIC, "a: an empty text block", A(U(T("") "," T("x"))),
     "messages: text content blocks must be non-empty", NULL, false},
    {VALIDATE_ANTHROPIC, "a: an empty text in a tool result",
     A(U(T("hi")) "," AS(TU("t1")) ","
       U("{'type':'tool_result','tool_use_id':'t1','content':[" T("") "]}")),
     "messages: text content blocks must be non-empty", NULL, false},
    {VALIDATE_ANTHROPIC, "a: only whitespace text", A(U(T("hi")) "," AS(T(" ")) "," U(T("x"))),
     "messages: text content blocks must contain non-whitespace text", NULL, false},
    {VALIDATE_ANTHROPIC, "a: only whitespace text in a user message", A(U(T("\\n") "," T(" "))),
     "messages: text content blocks must contain non-whitespace text", NULL, false},
    {VALIDATE_ANTHROPIC, "a: whitespace text beside a tool call (not measured: let through)",
     A(U(T("hi")) "," AS(T("\\n\\n") "," TU("t1")) "," U(TR("t1"))), NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: trailing whitespace in the prefill",
     A(U(T("hi")) "," AS(T("Sure "))),
     "messages: final assistant content cannot end with trailing whitespace", NULL, false},
    /* cache_control */
    {VALIDATE_ANTHROPIC, "a: four breakpoints",
     "{'model':'m','max_tokens':1,'system':[" TC("s") "],'messages':[" U(TC("a") "," TC("b") ","
                                                                         TC("c")) "]}",
     NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: five breakpoints",
     "{'model':'m','max_tokens':1,'system':[" TC("s") "],'messages':[" U(
         TC("a") "," TC("b") "," TC("c") "," TC("d")) "]}",
     "A maximum of 4 blocks with cache_control may be provided. Found 5.", NULL, false},
    /* tool_use ids */
    {VALIDATE_ANTHROPIC, "a: duplicate tool_use ids",
     A(U(T("hi")) "," AS(TU("t1") "," TU("t1")) "," U(TR("t1"))),
     "messages.1.content.1: `tool_use` ids must be unique", NULL, false},
    {VALIDATE_ANTHROPIC, "a: tool blocks in a request without tools",
     A_NO_TOOLS(U(T("go")) "," AS(TU("toolu_1")) "," U(TR("toolu_1"))),
     "Requests which include tool_use or tool_result blocks must define tools.", NULL, false},
    {VALIDATE_ANTHROPIC, "a: no tools and no tool blocks",
     A_NO_TOOLS(U(T("go")) "," AS(T("hi")) "," U(T("more"))), NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: a tool_use id with a dot", A(U(T("hi")) "," AS(TU("a.b")) "," U(TR("a.b"))),
     "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'", NULL, false},
    /* pairing */
    {VALIDATE_ANTHROPIC, "a: a new user message after a tool call (issue #16)",
     A(U(T("hi")) "," AS(T("x") "," TU("t1")) "," U(T("more"))), MISSING_RESULT("1", "t1"),
     NULL, false},
    {VALIDATE_ANTHROPIC, "a: the result after text",
     A(U(T("hi")) "," AS(TU("t1")) "," U(T("more") "," TR("t1"))), MISSING_RESULT("1", "t1"),
     NULL, false},
    {VALIDATE_ANTHROPIC, "a: one of two results missing",
     A(U(T("hi")) "," AS(TU("t1") "," TU("t2")) "," U(TR("t1"))), MISSING_RESULT("1", "t2"),
     NULL, false},
    {VALIDATE_ANTHROPIC, "a: a tool result with no call", A(U(TR("t9"))),
     STRAY_RESULT("0.content.0", "t9"), NULL, false},
    {VALIDATE_ANTHROPIC, "a: a result for an older call",
     A(U(T("hi")) "," AS(TU("t1")) "," U(TR("t1")) "," AS(T("ok")) "," U(TR("t1"))),
     STRAY_RESULT("4.content.0", "t1"), NULL, false},
    /* thinking */
    {VALIDATE_ANTHROPIC, "a: our thinking sent back as it was",
     A(U(T("hi")) "," AS(TH("Think.", SIG_THINK) "," TU("t1")) "," U(TR("t1"))), NULL, NULL,
     false},
    {VALIDATE_ANTHROPIC, "a: a signature we did not make is opaque",
     A(U(T("hi")) "," AS(TH("Anything", "EqQBCkYIARgCKkB") "," TU("t1")) "," U(TR("t1"))),
     NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: our thinking altered",
     A(U(T("hi")) "," AS(TH("Think!", SIG_THINK) "," TU("t1")) "," U(TR("t1"))),
     "messages.1.content.0: Invalid `signature` in `thinking` block", NULL, false},
    {VALIDATE_ANTHROPIC, "a: an empty signature",
     A(U(T("hi")) "," AS(TH("Think.", "") "," TU("t1")) "," U(TR("t1"))),
     "messages.1.content.0: Invalid `signature` in `thinking` block", NULL, false},
    {VALIDATE_ANTHROPIC, "a: thinking without a signature",
     A(U(T("hi")) "," AS("{'type':'thinking','thinking':'hm'}," TU("t1")) "," U(TR("t1"))),
     "messages.1.content.0.thinking.signature: Field required", NULL, false},
    {VALIDATE_ANTHROPIC, "a: redacted thinking without data",
     A(U(T("hi")) "," AS("{'type':'redacted_thinking'}," TU("t1")) "," U(TR("t1"))),
     "messages.1.content.0.redacted_thinking.data: Field required", NULL, false},
    {VALIDATE_ANTHROPIC, "a: thinking on, tool loop keeps its thinking",
     AT(THINK_ON, U(T("hi")) "," AS(TH("Think.", SIG_THINK) "," TU("t1")) "," U(TR("t1")) ","
                      AS(TU("t2")) "," U(TR("t2"))),
     NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: thinking on, a finished turn needs none",
     AT(THINK_ON, U(T("hi")) "," AS(T("done")) "," U(T("more"))), NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: thinking off, no thinking needed",
     A(U(T("hi")) "," AS(T("x") "," TU("t1")) "," U(TR("t1"))), NULL, NULL, false},
    {VALIDATE_ANTHROPIC, "a: thinking on, the tool loop lost its thinking",
     AT(THINK_ON, U(T("hi")) "," AS(T("x") "," TU("t1")) "," U(TR("t1"))),
     "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found `text`. "
     "When `thinking` is enabled, a final `assistant` message must start with a thinking block",
     NULL, true},
};

/* ---- OpenAI Chat -------------------------------------------------------------------- */

#define C(msgs) "{'model':'gpt-4o','messages':[" msgs "]}"
#define CS "{'role':'system','content':'be brief'}"
#define CU(s) "{'role':'user','content':'" s "'}"
#define CALL(id) "{'id':'" id "','type':'function','function':{'name':'f','arguments':'{}'}}"
#define CAC(calls) "{'role':'assistant','content':null,'tool_calls':[" calls "]}"
#define CT(id) "{'role':'tool','tool_call_id':'" id "','content':'ok'}"
#define CHAT_MISSING(ids)                                                                \
    "An assistant message with 'tool_calls' must be followed by tool messages responding " \
    "to each 'tool_call_id'. The following tool_call_ids did not have response messages: " ids

static const vcase chat_cases[] = {
    {VALIDATE_OPENAI_CHAT, "c: a tool loop",
     C(CS "," CU("hi") "," CAC(CALL("c1") "," CALL("c2")) "," CT("c1") "," CT("c2") ","
       CU("more")),
     NULL, NULL, false},
    {VALIDATE_OPENAI_CHAT, "c: assistant text with tool_calls",
     C(CU("hi") ",{'role':'assistant','content':'x','tool_calls':[" CALL("c1") "]}," CT("c1")),
     NULL, NULL, false},
    {VALIDATE_OPENAI_CHAT, "c: developer role", C("{'role':'developer','content':'x'}," CU("hi")),
     NULL, NULL, false},
    {VALIDATE_OPENAI_CHAT, "c: not JSON", "not json",
     "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
     "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
     "sent was not valid JSON. If you have trouble figuring out how to fix this, please "
     "contact us through our help center at help.openai.com.)",
     "", false},
    {VALIDATE_OPENAI_CHAT, "c: no model", "{'messages':[" CU("hi") "]}",
     "you must provide a model parameter", "", false},
    {VALIDATE_OPENAI_CHAT, "c: no messages", "{'model':'gpt-4o'}",
     "Missing required parameter: 'messages'.", "messages", false},
    {VALIDATE_OPENAI_CHAT, "c: unknown role", C("{'role':'bot','content':'x'}"),
     "Invalid value: 'bot'. Supported values are: 'system', 'assistant', 'user', 'function', "
     "'tool', and 'developer'.",
     "messages.[0].role", false},
    {VALIDATE_OPENAI_CHAT, "c: assistant null content without tool_calls",
     C(CU("hi") ",{'role':'assistant','content':null}," CU("x")),
     "Invalid value for 'content': expected a string, got null.", "messages.[1].content", false},
    {VALIDATE_OPENAI_CHAT, "c: a user message after tool_calls (issue #16)",
     C(CU("hi") "," CAC(CALL("c1")) "," CU("more")), CHAT_MISSING("c1"), "messages.[2].role",
     false},
    {VALIDATE_OPENAI_CHAT, "c: one of two answered",
     C(CU("hi") "," CAC(CALL("c1") "," CALL("c2")) "," CT("c1") "," CU("more")),
     CHAT_MISSING("c2"), "messages.[3].role", false},
    {VALIDATE_OPENAI_CHAT, "c: tool_calls last", C(CU("hi") "," CAC(CALL("c1"))),
     CHAT_MISSING("c1"), "messages.[1].role", false},
    {VALIDATE_OPENAI_CHAT, "c: a stray tool message", C(CU("hi") "," CT("c1")),
     "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
     "with 'tool_calls'.",
     "messages.[1].role", false},
    {VALIDATE_OPENAI_CHAT, "c: a tool message after the run ended",
     C(CU("hi") "," CAC(CALL("c1")) "," CT("c1") "," CU("x") "," CT("c1")),
     "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
     "with 'tool_calls'.",
     "messages.[4].role", false},
    {VALIDATE_OPENAI_CHAT, "c: an answer to an unknown id",
     C(CU("hi") "," CAC(CALL("c1")) "," CT("c9")),
     "Invalid parameter: 'tool_call_id' of 'c9' not found in 'tool_calls' of previous message.",
     "messages.[2].tool_call_id", false},
    {VALIDATE_OPENAI_CHAT, "c: an id answered twice",
     C(CU("hi") "," CAC(CALL("c1") "," CALL("c2")) "," CT("c1") "," CT("c1") "," CT("c2")),
     "Invalid parameter: Duplicate value for 'tool_call_id' of 'c1', in messages[2] and "
     "messages[3].",
     "messages.[3].tool_call_id", false},
};

/* ---- OpenAI Responses --------------------------------------------------------------- */

#define R(items) "{'model':'gpt-5','store':false,'input':[" items "]}"
#define RU "{'role':'user','content':[{'type':'input_text','text':'hi'}]}"
#define FC(id) "{'type':'function_call','call_id':'" id "','name':'f','arguments':'{}'}"
#define FO(id) "{'type':'function_call_output','call_id':'" id "','output':'ok'}"
#define RS_ENC "{'type':'reasoning','id':'rs_1','summary':[],'encrypted_content':'gAAA'}"
#define RS_BARE "{'type':'reasoning','id':'rs_1','summary':[]}"

static const vcase responses_cases[] = {
    {VALIDATE_RESPONSES, "r: a tool loop",
     R(RU "," RS_ENC "," FC("c1") "," FC("c2") "," FO("c1") "," FO("c2") "," RU), NULL, NULL,
     false},
    {VALIDATE_RESPONSES, "r: an output later, not adjacent",
     R(RU "," FC("c1") ",{'role':'assistant','content':[{'type':'output_text','text':'x'}]},"
          FO("c1")),
     NULL, NULL, false},
    {VALIDATE_RESPONSES, "r: string input", "{'model':'gpt-5','input':'hi'}", NULL, NULL,
     false},
    {VALIDATE_RESPONSES, "r: stored reasoning by id (store true)",
     "{'model':'gpt-5','input':[" RU "," RS_BARE "]}", NULL, NULL, false},
    {VALIDATE_RESPONSES, "r: no model", "{'input':'hi'}", "Missing required parameter: 'model'.",
     "model", false},
    {VALIDATE_RESPONSES, "r: a call with no output (issue #16)", R(RU "," FC("c1") "," RU),
     "No tool output found for function call c1.", "input", false},
    {VALIDATE_RESPONSES, "r: an output with no call", R(RU "," FO("c9")),
     "No tool call found for function call output with call_id c9.", "input", false},
    {VALIDATE_RESPONSES, "r: the output before its call", R(RU "," FO("c1") "," FC("c1")),
     "No tool call found for function call output with call_id c1.", "input", false},
    {VALIDATE_RESPONSES, "r: reasoning by id with store false", R(RU "," RS_BARE "," RU),
     "Item with id 'rs_1' not found. Items are not persisted when `store` is set to false. "
     "Try again with `store` set to true, or remove this item from your input.",
     "input", false},
};

/* ---- Gemini ------------------------------------------------------------------------- */

#define G(contents) "{'contents':[" contents "]}"
#define GU "{'role':'user','parts':[{'text':'hi'}]}"
#define GCALL "{'functionCall':{'name':'f','args':{}}}"
#define GRESP "{'functionResponse':{'name':'f','response':{'r':1}}}"
#define GM(parts) "{'role':'model','parts':[" parts "]}"
#define GR(parts) "{'role':'user','parts':[" parts "]}"
#define GCOUNT                                                                           \
    "Please ensure that the number of function response parts is equal to the number of " \
    "function call parts of the function call turn."

static const vcase gemini_cases[] = {
    {VALIDATE_GEMINI, "g: a tool loop",
     G(GU "," GM(GCALL "," GCALL) "," GR(GRESP "," GRESP) "," GM("{'text':'ok'}") "," GU), NULL,
     NULL, false},
    {VALIDATE_GEMINI, "g: no role (single turn)", G("{'parts':[{'text':'hi'}]}"), NULL, NULL,
     false},
    {VALIDATE_GEMINI, "g: no contents", "{'generationConfig':{}}",
     "* GenerateContentRequest.contents: contents is not specified\n", NULL, false},
    {VALIDATE_GEMINI, "g: an assistant role", G("{'role':'assistant','parts':[{'text':'x'}]}"),
     "Please use a valid role: user, model.", NULL, false},
    {VALIDATE_GEMINI, "g: empty parts", G(GU ",{'role':'model','parts':[]}," GU),
     "* GenerateContentRequest.contents[1].parts: contents.parts must not be empty.\n", NULL,
     false},
    {VALIDATE_GEMINI, "g: history opens with a call", G(GM(GCALL) "," GR(GRESP)),
     "Please ensure that function call turn comes immediately after a user turn or after a "
     "function response turn.",
     NULL, false},
    {VALIDATE_GEMINI, "g: a response with no call", G(GU "," GR(GRESP)),
     "Please ensure that function response turn comes immediately after a function call turn.",
     NULL, false},
    {VALIDATE_GEMINI, "g: a user turn after a call (issue #16)", G(GU "," GM(GCALL) "," GU),
     GCOUNT, NULL, false},
    {VALIDATE_GEMINI, "g: one of two calls answered",
     G(GU "," GM(GCALL "," GCALL) "," GR(GRESP)), GCOUNT, NULL, false},
};

/* ---- images (all four protocols) ---------------------------------------------------- */

/* A 1x1 PNG; its first 44 base64 characters (the header, no pixels); "hello". */
#define PNG1 "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
#define PNG_CUT "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
#define HELLO "aGVsbG8="
#define AIMG(mt, data) "{'type':'image','source':{'type':'base64','media_type':'" mt "','data':'" data "'}}"
#define AI_WHERE "messages.0.content.1.image.source"
#define CHAT_IMG(model, url)                                                             \
    "{'model':'" model "','messages':[{'role':'user','content':[{'type':'text','text':'x'}," \
    "{'type':'image_url','image_url':{'url':'" url "'}}]}]}"
#define RESP_IMG(url)                                                                    \
    "{'model':'gpt-5','input':[{'role':'user','content':[{'type':'input_text','text':'x'}," \
    "{'type':'input_image','image_url':'" url "'}]}]}"
#define GEM_IMG(mt, data)                                                                \
    G("{'role':'user','parts':[{'text':'x'},{'inlineData':{'mimeType':'" mt "','data':'" data \
      "'}}]}")
#define OAI_UNSUPPORTED                                                                  \
    "You uploaded an unsupported image. Please make sure your image has of one the "      \
    "following formats: ['png', 'jpeg', 'gif', 'webp']."
#define GEM_UNPROCESSABLE                                                                \
    "Unable to process input image. Please retry or report in "                           \
    "https://developers.generativeai.google/guide/troubleshooting"

static const vcase image_cases[] = {
    {VALIDATE_ANTHROPIC, "ai: a PNG", A(U(T("x") "," AIMG("image/png", PNG1))), NULL, NULL,
     false},
    {VALIDATE_ANTHROPIC, "ai: a PNG in a tool result",
     A(U(T("hi")) "," AS(TU("t1")) ","
       U("{'type':'tool_result','tool_use_id':'t1','content':[" T("r") ","
         AIMG("image/png", PNG_CUT) "]}")),
     "messages.2.content.0.tool_result.content.1.image.source.base64.data: Could not process "
     "image", NULL, false},
    {VALIDATE_ANTHROPIC, "ai: a BMP media type", A(U(T("x") "," AIMG("image/bmp", PNG1))),
     AI_WHERE ".base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or "
     "'image/webp'", NULL, false},
    {VALIDATE_ANTHROPIC, "ai: a PNG called JPEG", A(U(T("x") "," AIMG("image/jpeg", PNG1))),
     AI_WHERE ".base64.data: Image does not match the provided media type image/jpeg", NULL,
     false},
    {VALIDATE_ANTHROPIC, "ai: bad base64", A(U(T("x") "," AIMG("image/png", "@@@@"))),
     AI_WHERE ".base64.data: Invalid base64 data", NULL, false},
    {VALIDATE_ANTHROPIC, "ai: text, not an image", A(U(T("x") "," AIMG("image/png", HELLO))),
     AI_WHERE ".base64.data: Could not process image", NULL, false},
    {VALIDATE_ANTHROPIC, "ai: a cut PNG", A(U(T("x") "," AIMG("image/png", PNG_CUT))),
     AI_WHERE ".base64.data: Could not process image", NULL, false},
    {VALIDATE_ANTHROPIC, "ai: no source type",
     A(U(T("x") ",{'type':'image','source':{'media_type':'image/png','data':'" PNG1 "'}}")),
     AI_WHERE ": Input tag '' found using 'type' does not match any of the expected tags: "
     "'base64', 'url', 'file'", NULL, false},
    {VALIDATE_OPENAI_CHAT, "ci: a PNG data URL",
     CHAT_IMG("gpt-4.1", "data:image/png;base64," PNG1), NULL, NULL, false},
    {VALIDATE_OPENAI_CHAT, "ci: an https URL", CHAT_IMG("gpt-4.1", "https://x.test/a.png"),
     NULL, NULL, false},
    {VALIDATE_OPENAI_CHAT, "ci: a text-only model",
     CHAT_IMG("deepseek-chat", "data:image/png;base64," PNG1),
     "Invalid content type. image_url is only supported by certain models.",
     "messages.[0].content.[1].type", false},
    {VALIDATE_OPENAI_CHAT, "ci: not a data URL", CHAT_IMG("gpt-4.1", PNG1),
     "Invalid 'messages.[0].content.[1].image_url.url'. Expected a base64-encoded data URL "
     "with an image MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got a "
     "value without the 'data:' prefix.", "messages.[0].content.[1].image_url.url", false},
    {VALIDATE_OPENAI_CHAT, "ci: text as a PNG", CHAT_IMG("gpt-4.1", "data:image/png;base64," HELLO),
     OAI_UNSUPPORTED, "messages.[0].content.[1].image_url.url", false},
    {VALIDATE_RESPONSES, "ri: a PNG data URL", RESP_IMG("data:image/png;base64," PNG1), NULL,
     NULL, false},
    {VALIDATE_RESPONSES, "ri: a cut PNG", RESP_IMG("data:image/png;base64," PNG_CUT),
     OAI_UNSUPPORTED, "input[0].content[1].image_url", false},
    {VALIDATE_GEMINI, "gi: a PNG", GEM_IMG("image/png", PNG1), NULL, NULL, false},
    {VALIDATE_GEMINI, "gi: HEIC is let through", GEM_IMG("image/heic", HELLO), NULL, NULL,
     false},
    {VALIDATE_GEMINI, "gi: a BMP", GEM_IMG("image/bmp", PNG1), "Unsupported MIME type: image/bmp",
     NULL, false},
    {VALIDATE_GEMINI, "gi: bad base64", GEM_IMG("image/png", "@@@@"),
     "Invalid value at 'contents[0].parts[1].inline_data.data' (TYPE_BYTES), Base64 decoding "
     "failed for \"@@@@\"", NULL, false},
    {VALIDATE_GEMINI, "gi: text as a PNG", GEM_IMG("image/png", HELLO), GEM_UNPROCESSABLE,
     NULL, false},
};

static void run_table(const vcase *cs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        run_case(&cs[i]);
}

static void test_anthropic(void)
{
    run_table(anthropic_cases, sizeof anthropic_cases / sizeof anthropic_cases[0]);
}

static void test_openai_chat(void)
{
    run_table(chat_cases, sizeof chat_cases / sizeof chat_cases[0]);
}

static void test_responses(void)
{
    run_table(responses_cases, sizeof responses_cases / sizeof responses_cases[0]);
}

static void test_images(void)
{
    run_table(image_cases, sizeof image_cases / sizeof image_cases[0]);
}

static void test_gemini(void)
{
    run_table(gemini_cases, sizeof gemini_cases / sizeof gemini_cases[0]);
}

/* ---- paths, bodies, signatures ------------------------------------------------------ */

static void test_paths(void)
{
    CHECK_INT(validate_proto_of("/v1/messages"), VALIDATE_ANTHROPIC);
    CHECK_INT(validate_proto_of("/v1/chat/completions"), VALIDATE_OPENAI_CHAT);
    CHECK_INT(validate_proto_of("/api/v1/chat/completions"), VALIDATE_OPENAI_CHAT);
    CHECK_INT(validate_proto_of("/v1/responses"), VALIDATE_RESPONSES);
    CHECK_INT(validate_proto_of("/v1beta/models/gemini-2.5-pro:streamGenerateContent"),
              VALIDATE_GEMINI);
    CHECK_INT(validate_proto_of("/v1beta/models/gemini-2.5-pro:generateContent"),
              VALIDATE_GEMINI);
    CHECK_INT(validate_proto_of("/"), VALIDATE_NONE);
    CHECK_INT(validate_proto_of("/v1/models"), VALIDATE_NONE);
    /* an odd path is never validated, whatever it carries */
    validate_violation v;
    CHECK(!validate_request(VALIDATE_NONE, NULL, &v));
}

static void test_error_bodies(void)
{
    validate_violation v = {.message = "m \"q\"", .param = "messages.[1].role"};
    char *a = validate_error_body(VALIDATE_ANTHROPIC, &v, 3);
    CHECK_STR(a, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
                 "\"message\":\"m \\\"q\\\"\"},\"request_id\":\"req_fake_strict_3\"}");
    free(a);
    char *o = validate_error_body(VALIDATE_OPENAI_CHAT, &v, 3);
    CHECK_STR(o, "{\n    \"error\": {\n        \"message\": \"m \\\"q\\\"\",\n"
                 "        \"type\": \"invalid_request_error\",\n"
                 "        \"param\": \"messages.[1].role\",\n        \"code\": null\n    }\n}\n");
    free(o);
    validate_violation nop = {.message = "x", .param = ""};
    char *r = validate_error_body(VALIDATE_RESPONSES, &nop, 0);
    CHECK(r && strstr(r, "\"param\": null,") != NULL);
    free(r);
    char *g = validate_error_body(VALIDATE_GEMINI, &nop, 0);
    CHECK_STR(g, "{\n  \"error\": {\n    \"code\": 400,\n    \"message\": \"x\",\n"
                 "    \"status\": \"INVALID_ARGUMENT\"\n  }\n}\n");
    free(g);
    CHECK(validate_error_body(VALIDATE_NONE, &nop, 0) == NULL);
    CHECK_STR(validate_content_type(VALIDATE_GEMINI), "application/json; charset=UTF-8");
    CHECK_STR(validate_request_id_header(VALIDATE_ANTHROPIC), "request-id");
    CHECK_STR(validate_request_id_header(VALIDATE_OPENAI_CHAT), "x-request-id");
    CHECK(validate_request_id_header(VALIDATE_GEMINI) == NULL);
}

static void test_signatures(void)
{
    char s1[32], s2[32];
    validate_sign_thinking("Think.", 6, s1, sizeof s1);
    CHECK_STR(s1, SIG_THINK);
    validate_sign_thinking("Think!", 6, s2, sizeof s2);
    CHECK(strcmp(s1, s2) != 0);
    CHECK_INT(strlen(s1), 25);
}

/* ---- what hew really sends ---------------------------------------------------------- */

typedef struct hew_api {
    const char *profile, *protocol, *model;
    validate_proto proto;
    const char *bug_message; /* what the tool-call-then-user-text history gets */
} hew_api;

static const hew_api hew_apis[] = {
    {"anthropic", NULL, "claude-sonnet-4-5", VALIDATE_ANTHROPIC, MISSING_RESULT("1", "toolu_1")},
    {"openai", NULL, "gpt-4o", VALIDATE_OPENAI_CHAT, CHAT_MISSING("toolu_1")},
    {"openai", "openai-responses", "gpt-5", VALIDATE_RESPONSES,
     "No tool output found for function call toolu_1."},
    {"gemini", NULL, "gemini-2.5-pro", VALIDATE_GEMINI, GCOUNT},
};

/* user, assistant (thinking signed by the fake + text + tool_use), and then either the
 * tool result with environment text (good) or only a new user text (the bug). */
static json_t *hew_history(bool bug, const char *thinking)
{
    char sig[32];
    validate_sign_thinking("Think.", 6, sig, sizeof sig);
    json_t *a = json_array();
    json_array_append_new(a, api_msg_thinking(thinking, strlen(thinking), sig));
    json_array_append_new(a, api_msg_text("Reading it.", 11));
    json_array_append_new(a, api_msg_tool_use("toolu_1", "read_file",
                                              json_pack("{s:s}", "path", "a.c")));
    json_t *u = json_array();
    if (!bug)
        json_array_append_new(u, api_msg_tool_result("toolu_1", "int x;", false));
    json_array_append_new(u, api_msg_text("<environment_details>cwd</environment_details>",
                                          46));
    json_t *h = json_array();
    json_array_append_new(h, api_msg_user_text("Fix a.c"));
    json_array_append_new(h, api_msg_new("assistant", a));
    json_array_append_new(h, api_msg_new("user", u));
    return h;
}

/* Build the request hew sends for api a over history h (thinking on when asked), check it
 * against the rules the path selects; true on a violation (v filled). */
static bool hew_request(const hew_api *a, const json_t *h, long thinking, validate_violation *v)
{
    api_provider p;
    hew_err err = HEW_ERR_INIT;
    api_provider_opts o = {.base_url = "http://127.0.0.1:9", .api_key = "k", .model = a->model,
                           .protocol = a->protocol};
    if (api_provider_init(&p, a->profile, &o, &err) != HEW_OK) {
        check_fail(__FILE__, __LINE__, "%s: %s", a->profile, err.msg);
        return false;
    }
    json_t *schema = json_pack("{s:s,s:{s:{s:s}},s:[s]}", "type", "object", "properties",
                               "path", "type", "string", "required", "path");
    api_tool tool = {.name = "read_file", .description = "Read a file", .input_schema = schema};
    api_request r = api_request_defaults();
    r.system = "You are hew.";
    r.messages = h;
    r.tools = &tool;
    r.ntools = 1;
    r.thinking_budget = thinking;
    api_http http;
    bool bad = false;
    if (api_build(&p, &r, &http, &err) != HEW_OK) {
        check_fail(__FILE__, __LINE__, "%s: build: %s", a->model, err.msg);
    } else {
        const char *path = strstr(http.url, "127.0.0.1:9") + strlen("127.0.0.1:9");
        char clean[512];
        snprintf(clean, sizeof clean, "%.*s", (int)strcspn(path, "?"), path);
        CHECK_INT(validate_proto_of(clean), a->proto);
        json_t *body = json_loads(http.body, 0, NULL);
        CHECK(body != NULL);
        bad = validate_request(a->proto, body, v);
        json_decref(body);
        api_http_release(&http);
    }
    json_decref(schema);
    return bad;
}

static void test_hew_requests_pass(void)
{
    for (size_t i = 0; i < sizeof hew_apis / sizeof hew_apis[0]; i++) {
        check_current = hew_apis[i].model;
        json_t *h = hew_history(false, "Think.");
        validate_violation v;
        for (long thinking = 0; thinking <= 2048; thinking += 2048)
            if (hew_request(&hew_apis[i], h, thinking, &v))
                check_fail(__FILE__, __LINE__, "%s (thinking %ld): hew's request refused: %s",
                           hew_apis[i].model, thinking, v.message);
        json_decref(h);
    }
}

static void test_hew_bug_shape_refused(void)
{
    for (size_t i = 0; i < sizeof hew_apis / sizeof hew_apis[0]; i++) {
        check_current = hew_apis[i].model;
        json_t *h = hew_history(true, "Think.");
        validate_violation v;
        CHECK(hew_request(&hew_apis[i], h, 0, &v));
        CHECK_STR(v.message, hew_apis[i].bug_message);
        json_decref(h);
    }
}

static void test_hew_altered_thinking_refused(void)
{
    json_t *h = hew_history(false, "Think, altered.");
    validate_violation v;
    CHECK(hew_request(&hew_apis[0], h, 2048, &v));
    CHECK_STR(v.message, "messages.1.content.0: Invalid `signature` in `thinking` block");
    json_decref(h);
}

int main(void)
{
    RUN(test_anthropic);
    RUN(test_openai_chat);
    RUN(test_responses);
    RUN(test_gemini);
    RUN(test_images);
    RUN(test_paths);
    RUN(test_error_bodies);
    RUN(test_signatures);
    RUN(test_hew_requests_pass);
    RUN(test_hew_bug_shape_refused);
    RUN(test_hew_altered_thinking_refused);
    return check_report();
}
