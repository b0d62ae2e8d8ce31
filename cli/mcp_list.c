/* mcp_list — `hew mcp list`: a placeholder until the command that shows the configured
 * MCP servers and their state lands (another change replaces this file). */
#include <stdio.h>

#include "cli.h"

int cmd_mcp_list(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fputs("hew mcp list: not yet available\n", stderr);
    return 1;
}
