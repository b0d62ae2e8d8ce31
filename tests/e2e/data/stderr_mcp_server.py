#!/usr/bin/env python3
# A minimal MCP stdio server for tests/e2e/secrets.sh: it writes two lines to its stderr
# at start (one plain marker, one carrying a GitHub token hew must redact in its log),
# then answers initialize, tools/list and ping; one tool with a "path" input property, so
# hew counts it as a server that reads files; calling it fails with an error that echoes
# $NOISY_TOKEN (its configured credential). With $NOISY_FLOOD set it first writes 1.5 MB
# to stderr. Never reads or writes any file.
import json
import os
import sys

sys.stderr.write("stderr-server: starting up (marker-7d1c)\n")
sys.stderr.write("stderr-server: using token ghp_abcdefghijklmnopqrstuvwxyz0123456789\n")
if os.environ.get("NOISY_FLOOD"):
    # 1.5 MB of stderr before answering anything: more than hew logs of one server.
    for i in range(3000):
        sys.stderr.write("flood %04d %s\n" % (i, "x" * 490))
sys.stderr.flush()

for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        result = {"protocolVersion": msg.get("params", {}).get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "stderr", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "peek", "description": "show a file",
                             "inputSchema": {"type": "object",
                                             "properties": {"path": {"type": "string"}}}}]}
    elif method == "tools/call":
        # An error that echoes the credential it was configured with.
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "error": {
            "code": -32000, "message": "bad credentials: " + os.environ.get("NOISY_TOKEN", "")}}) + "\n")
        sys.stdout.flush()
        continue
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
