// lib.mjs — what the SDK-driven tests of `hew acp` share (tests/acp/*.mjs besides
// session.mjs): spawning `hew acp` against the fake provider with the official SDK's client
// connected to it, the client's handlers (permissions, and the client's files and
// whatever else a test adds), and small helpers over the session/update notifications and
// the requests the fake recorded. The environment comes from the e2e script: HEW_BIN,
// FAKE_URL, FAKE_RECORD, ACP_WORK.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";

export { acp, assert };
export const HEW = process.env.HEW_BIN;
export const WORK = process.env.ACP_WORK;
export const RECORD = process.env.FAKE_RECORD;
assert.ok(HEW && WORK && RECORD && process.env.FAKE_URL, "HEW_BIN, ACP_WORK, FAKE_RECORD, FAKE_URL");

export const hewArgs = ["acp", "--provider", "anthropic", "--model", "claude-sonnet-4-5",
    "--base-url", process.env.FAKE_URL, "--native-tools", "--no-checkpoints",
    "--retry-delay-ms", "10"];

// One `hew acp` process and the SDK client connected to it. updates: every
// session/update's params, in order; decide(request) answers permission requests;
// handlers: more request handlers of the client ({"fs/read_text_file": fn(params)}).
// opts.args replace hewArgs, opts.env is the environment (default: this one's).
export function startAgent(opts = {}) {
    const child = spawn(HEW, opts.args ?? hewArgs, { cwd: WORK, stdio: ["pipe", "pipe", "pipe"],
        env: opts.env ?? process.env });
    let stderr = "";
    child.stderr.on("data", (d) => { stderr += d; });
    const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    const agent = { child, exited, updates: [], permissions: [], decide: null,
        stderr: () => stderr };
    let app = acp.client({ name: "hew-acp-test" })
        .onNotification("session/update", ({ params }) => { agent.updates.push(params); })
        .onRequest("session/request_permission", ({ params }) => {
            agent.permissions.push(params);
            assert.ok(agent.decide, "an unexpected permission request: " + JSON.stringify(params));
            return agent.decide(params);
        });
    for (const [method, fn] of Object.entries(opts.handlers ?? {}))
        app = app.onRequest(method, ({ params }) => fn(params));
    agent.app = app;
    agent.stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    return agent;
}

// Close the agent's stdin and check that it exits 0.
export async function stopAgent(agent) {
    agent.child.stdin.end();
    const code = await agent.exited;
    assert.equal(code, 0, "hew acp exit status at EOF; stderr: " + agent.stderr());
}

// The updates of one kind.
export const ofKind = (agent, kind) => agent.updates.filter((u) => u.update.sessionUpdate === kind);
export const messageText = (agent, kind = "agent_message_chunk") =>
    ofKind(agent, kind).map((u) => u.update.content.text).join("");
// The requests the fake provider got, in order ({body, ...}).
export const requests = () => readFileSync(RECORD, "utf8").split("\n").filter(Boolean).map(JSON.parse);
export const pick = (optionId) => () => ({ outcome: { outcome: "selected", optionId } });
