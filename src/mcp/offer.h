/* offer — what a connected MCP server offers (its tools, resource templates and
 * resources), as plain borrowed data: the shape mcp_hub_snapshot fills and the system
 * prompt (prompt/prompt.h) reads. It lives here, under the prompt, so that the MCP folder
 * never includes prompt/ (the arrow points down: prompt uses mcp). Types only: it must
 * never gain functions, allocation or knowledge of how servers are reached. Everything is
 * borrowed from whoever filled it (the snapshot keeps the strings alive). */
#ifndef HEW_MCP_OFFER_H
#define HEW_MCP_OFFER_H

#include <jansson.h>
#include <stddef.h>

typedef struct mcp_offer_tool {
    const char *name;
    const char *description;      /* may be NULL */
    const json_t *input_schema;   /* JSON Schema object; may be NULL */
} mcp_offer_tool;

typedef struct mcp_offer_resource {
    const char *uri;              /* for templates: the URI template */
    const char *name;             /* may be NULL */
    const char *description;      /* may be NULL */
} mcp_offer_resource;

typedef struct mcp_offer_server {
    const char *name;
    const char *command;          /* how it is started ("npx -y server"), for the reader;
                                     may be NULL */
    const mcp_offer_tool *tools;
    size_t ntools;
    const mcp_offer_resource *templates;
    size_t ntemplates;
    const mcp_offer_resource *resources;
    size_t nresources;
} mcp_offer_server;

#endif
