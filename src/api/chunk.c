/* chunk — names for the chunk vocabulary (protocols, stop reasons). Data only; it must
 * never know a wire format. */
#include "api/chunk.h"

#include <string.h>

static const char *const protocol_names[] = {
    [API_PROTO_ANTHROPIC] = "anthropic",
    [API_PROTO_OPENAI_CHAT] = "openai-chat",
    [API_PROTO_OPENAI_RESPONSES] = "openai-responses",
    [API_PROTO_GEMINI] = "gemini",
};

const char *api_protocol_name(api_protocol p)
{
    if ((unsigned)p >= sizeof protocol_names / sizeof protocol_names[0])
        return "unknown";
    return protocol_names[p];
}

bool api_protocol_parse(const char *name, api_protocol *out)
{
    if (!name)
        return false;
    for (size_t i = 0; i < sizeof protocol_names / sizeof protocol_names[0]; i++)
        if (strcmp(name, protocol_names[i]) == 0) {
            *out = (api_protocol)i;
            return true;
        }
    if (strcmp(name, "anthropic-messages") == 0) {
        *out = API_PROTO_ANTHROPIC;
        return true;
    }
    return false;
}

const char *api_stop_name(api_stop s)
{
    switch (s) {
    case API_STOP_STOP:
        return "stop";
    case API_STOP_TOOL_CALLS:
        return "tool_calls";
    case API_STOP_LENGTH:
        return "length";
    case API_STOP_CONTENT_FILTER:
        return "content_filter";
    case API_STOP_ERROR:
        return "error";
    }
    return "error";
}
