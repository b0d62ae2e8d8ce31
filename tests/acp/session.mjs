// session.mjs — `hew acp` driven by the official ACP SDK's client (@agentclientprotocol/sdk,
// pinned in package.json), the way an editor drives it: initialize, a new session, a prompt
// whose file edit the client allows (tool_call kind edit, its diff, the permission
// request, completed), one whose edit it rejects (failed; the file unchanged), a
// session/cancel during a long streamed answer (the prompt answers "cancelled") and a
// prompt after it that goes on with the same conversation, then session/load of the
// session in a new `hew acp` process (its conversation replayed as session/update) and a
// prompt there in plan mode (session/set_mode; the plan comes back as a plan update);
// then a session with the client's own MCP server (the "everything" server of tests/mcp)
// and an embedded resource in the prompt, an auto-approved read (no permission asked), a
// command allowed always (its output shown) and the same command again (not asked); a
// question (its options listed) answered by the next prompt, a request refused with 401
// (the prompt fails with hew's message) and the task going on at the prompt after it.
//
// Run by tests/e2e/acp_sdk.sh, which starts the fake provider with the scenario below
// and sets: HEW_BIN, FAKE_URL, FAKE_RECORD (the requests the fake got), ACP_WORK (the
// workspace), EVERYTHING_JS (the MCP server). Exits non-zero with a message on the first thing that is wrong.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";

const HEW = process.env.HEW_BIN;
const WORK = process.env.ACP_WORK;
const RECORD = process.env.FAKE_RECORD;
assert.ok(HEW && WORK && RECORD && process.env.FAKE_URL, "HEW_BIN, ACP_WORK, FAKE_RECORD, FAKE_URL");

const hewArgs = ["acp", "--provider", "anthropic", "--model", "claude-sonnet-4-5",
    "--base-url", process.env.FAKE_URL, "--native-tools", "--no-checkpoints",
    "--retry-delay-ms", "10"];

// One `hew acp` process and the SDK client connected to it. updates: every
// session/update's params, in order; decide(request) answers permission requests.
function startAgent() {
    const child = spawn(HEW, hewArgs, { cwd: WORK, stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => { stderr += d; });
    const exited = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
    const agent = { child, exited, updates: [], permissions: [], decide: null,
        stderr: () => stderr };
    agent.app = acp.client({ name: "hew-acp-test" })
        .onNotification("session/update", ({ params }) => { agent.updates.push(params); })
        .onRequest("session/request_permission", ({ params }) => {
            agent.permissions.push(params);
            assert.ok(agent.decide, "an unexpected permission request: " + JSON.stringify(params));
            return agent.decide(params);
        });
    agent.stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
    return agent;
}

// The updates of one kind.
const ofKind = (agent, kind) => agent.updates.filter((u) => u.update.sessionUpdate === kind);
const messageText = (agent, kind = "agent_message_chunk") =>
    ofKind(agent, kind).map((u) => u.update.content.text).join("");
const requests = () => readFileSync(RECORD, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const pick = (optionId) => () => ({ outcome: { outcome: "selected", optionId } });

async function waitFor(pred, what, ms = 20000) {
    const end = Date.now() + ms;
    while (!pred()) {
        if (Date.now() > end)
            throw new Error("timed out waiting for " + what);
        await new Promise((r) => setTimeout(r, 20));
    }
}

// ---- the first process: a new session, three prompts and a cancel --------------------------
let sessionId;
{
    const a = startAgent();
    await a.app.connectWith(a.stream, async (ctx) => {
        const init = await ctx.request("initialize", {
            protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        });
        assert.equal(init.protocolVersion, acp.PROTOCOL_VERSION);
        assert.equal(init.agentCapabilities.loadSession, true);
        assert.equal(init.agentCapabilities.promptCapabilities.embeddedContext, true);
        assert.equal(init.agentInfo.name, "hew");

        const made = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
        sessionId = made.sessionId;
        assert.match(sessionId, /^[0-9]+$/);
        assert.equal(made.modes.currentModeId, "act");
        assert.deepEqual(made.modes.availableModes.map((m) => m.id), ["act", "plan"]);

        // 1. an edit, allowed once
        a.decide = pick("allow_once");
        let r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "create hello.txt" }] });
        assert.equal(r.stopReason, "end_turn");
        assert.equal(readFileSync(WORK + "/hello.txt", "utf8"), "hello\n");
        assert.equal(a.permissions.length, 1);
        const perm = a.permissions[0];
        assert.equal(perm.sessionId, sessionId);
        assert.deepEqual(perm.options.map((o) => o.kind),
            ["allow_once", "allow_always", "reject_once", "reject_always"]);
        assert.equal(perm.toolCall.kind, "edit");
        assert.deepEqual(perm.toolCall.locations, [{ path: WORK + "/hello.txt" }]);
        const call = ofKind(a, "tool_call").find((u) => u.update.toolCallId === perm.toolCall.toolCallId);
        assert.ok(call, "the permission's tool call was announced with tool_call");
        assert.equal(call.update.kind, "edit");
        assert.equal(call.update.status, "pending");
        assert.match(call.update.title, /hello\.txt/);
        const diff = perm.toolCall.content.find((c) => c.type === "diff");
        assert.deepEqual({ path: diff.path, oldText: diff.oldText, newText: diff.newText },
            { path: WORK + "/hello.txt", oldText: null, newText: "hello\n" });
        const statuses = ofKind(a, "tool_call_update")
            .filter((u) => u.update.toolCallId === perm.toolCall.toolCallId && u.update.status)
            .map((u) => u.update.status);
        assert.deepEqual(statuses, ["in_progress", "completed"]);
        assert.match(messageText(a), /Created hello\.txt\./);
        assert.equal(ofKind(a, "user_message_chunk").length, 0, "the user's own text is not echoed");
        assert.deepEqual(r.usage, { totalTokens: 127, inputTokens: 100, outputTokens: 20,
            cachedReadTokens: 7, cachedWriteTokens: 0 }, "the turn's usage");

        // 2. an edit, rejected: the file stays as it was
        a.decide = pick("reject_once");
        r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "now change it to bye" }] });
        assert.equal(r.stopReason, "end_turn");
        assert.equal(a.permissions.length, 2);
        assert.equal(readFileSync(WORK + "/hello.txt", "utf8"), "hello\n", "a rejected edit changed the file");
        const rejected = a.permissions[1].toolCall;
        const d2 = rejected.content.find((c) => c.type === "diff");
        assert.equal(d2.oldText, "hello\n");
        assert.equal(d2.newText, "bye\n");
        const last = ofKind(a, "tool_call_update")
            .filter((u) => u.update.toolCallId === rejected.toolCallId && u.update.status).pop();
        assert.equal(last.update.status, "failed");
        assert.match(messageText(a), /Left hello\.txt as it was\./);
        const feedback = JSON.stringify(requests()[2].body);
        assert.match(feedback, /now change it to bye/, "the second prompt reached the model");

        // 3. cancel during a long answer
        a.decide = null;
        const before = messageText(a).length;
        const long = ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "tell me a long story" }] });
        await waitFor(() => messageText(a).length > before + 20, "the long answer to stream");
        const t0 = Date.now();
        await ctx.notify("session/cancel", { sessionId });
        r = await long;
        const cancelMs = Date.now() - t0;
        assert.equal(r.stopReason, "cancelled");
        assert.ok(!/THE END/.test(messageText(a)), "the whole long answer came: not cancelled");
        console.log(`cancel answered in ${cancelMs} ms`);

        // 4. the conversation goes on after the cancel
        const seen = a.updates.length;
        r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "go on please" }] });
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(a), /Resumed after the cancel\./);
        const after = a.updates.slice(seen);
        assert.equal(after.filter((u) => u.update.sessionUpdate === "user_message_chunk").length, 0,
            "the resumed task's replay was sent to the client that has it");
        assert.equal(after.filter((u) => u.update.sessionUpdate === "tool_call").length, 0);
        const body = JSON.stringify(requests()[5].body);
        assert.match(body, /go on please/);
        assert.match(body, /create hello\.txt/, "the conversation was lost after the cancel");
    });
    a.child.stdin.end();
    const code = await a.exited;
    assert.equal(code, 0, "hew acp exit status at EOF; stderr: " + a.stderr());
}

// ---- the second process: load the session, then a prompt in plan mode -----------------------
{
    const b = startAgent();
    await b.app.connectWith(b.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: {} });
        const loaded = await ctx.request("session/load", { sessionId, cwd: WORK, mcpServers: [] });
        assert.equal(loaded.modes.currentModeId, "act");
        const users = messageText(b, "user_message_chunk");
        assert.match(users, /create hello\.txt/);
        assert.match(users, /go on please/);
        assert.match(messageText(b), /Created hello\.txt\./);
        const calls = ofKind(b, "tool_call");
        assert.ok(calls.length >= 2, "the replay shows the tool calls");
        assert.ok(calls.every((u) => u.update.status === "completed"));
        assert.equal(calls[0].update.kind, "edit");

        await ctx.request("session/set_mode", { sessionId, modeId: "plan" });
        const seen = b.updates.length;
        const r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "plan the next change" }] });
        assert.equal(r.stopReason, "end_turn");
        const plan = b.updates.slice(seen).find((u) => u.update.sessionUpdate === "plan");
        assert.ok(plan, "the plan-mode answer came as a plan update");
        assert.deepEqual(plan.update.entries.map((e) => e.content), ["Read hello.txt", "Change it"]);
        const body = JSON.stringify(requests()[6].body);
        assert.match(body, /plan the next change/);
        assert.match(body, /create hello\.txt/, "the loaded conversation reached the model");
        assert.match(body, /PLAN MODE/, "set_mode did not reach the model");
    });
    b.child.stdin.end();
    assert.equal(await b.exited, 0);
}

// ---- session/load of an unknown session ---------------------------------------------------
{
    const c = startAgent();
    await c.app.connectWith(c.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
        await assert.rejects(ctx.request("session/load", { sessionId: "999", cwd: WORK, mcpServers: [] }),
            (e) => e.code === -32002);
    });
    c.child.stdin.end();
    assert.equal(await c.exited, 0);
}
// ---- a new session with the client's MCP server: an auto-approved read, a command allowed
// always (its output shown; the same command again asks nothing) ---------------------------
{
    const d = startAgent();
    await d.app.connectWith(d.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
        const mcpServers = [{ name: "everything", command: process.execPath,
            args: [process.env.EVERYTHING_JS], env: [{ name: "ACP_TEST", value: "1" }] }];
        const { sessionId: sid } = await ctx.request("session/new", { cwd: WORK, mcpServers });
        d.decide = pick("allow_always");
        const r = await ctx.request("session/prompt", { sessionId: sid,
            prompt: [{ type: "text", text: "look around" },
                { type: "resource", resource: { uri: "file://" + WORK + "/notes.md",
                    text: "the notes the editor holds" } }] });
        assert.equal(r.stopReason, "end_turn");
        const calls = ofKind(d, "tool_call");
        assert.deepEqual(calls.map((u) => u.update.kind), ["read", "execute", "execute"]);
        assert.equal(calls[0].update.status, "in_progress", "an auto-approved read asks nothing");
        assert.equal(calls[1].update.title, "echo hi-from-acp");
        assert.deepEqual(calls[1].update.rawInput, { command: "echo hi-from-acp" });
        assert.equal(d.permissions.length, 1, "allow_always: the same command asks once");
        assert.equal(d.permissions[0].options[1].kind, "allow_always");
        const out = ofKind(d, "tool_call_update").filter((u) =>
            u.update.toolCallId === calls[1].update.toolCallId && u.update.content);
        assert.ok(out.some((u) => u.update.content[0].content.text.includes("hi-from-acp")),
            "the command's output was not shown");
        const second = ofKind(d, "tool_call_update").filter((u) =>
            u.update.toolCallId === calls[2].update.toolCallId).map((u) => u.update.status);
        assert.deepEqual(second.filter(Boolean), ["in_progress", "completed"]);
        const body = JSON.stringify(requests()[7].body);
        assert.match(body, /everything__/, "the client's MCP server's tools did not reach the model");
        assert.match(body, /the notes the editor holds/, "the embedded resource was lost");
        assert.match(body, /notes\.md/);

        // a question ends the turn; the next prompt is the answer
        let q = await ctx.request("session/prompt", { sessionId: sid,
            prompt: [{ type: "text", text: "pick a colour" }] });
        assert.equal(q.stopReason, "end_turn");
        assert.match(messageText(d), /Which colour\?\n\n1\. red\n2\. blue/);
        // the answer's request is refused (401): the prompt fails with hew's message
        await assert.rejects(ctx.request("session/prompt", { sessionId: sid,
            prompt: [{ type: "text", text: "blue" }] }), (e) => {
            assert.equal(e.code, -32603);
            assert.match(e.message, /401|key|auth/i);
            return true;
        });
        assert.match(JSON.stringify(requests()[12].body), /blue/);
        // and the task goes on at the next prompt
        q = await ctx.request("session/prompt", { sessionId: sid,
            prompt: [{ type: "text", text: "try again" }] });
        assert.equal(q.stopReason, "end_turn");
        assert.match(messageText(d), /Blue it is\./);
        const again = JSON.stringify(requests()[13].body);
        assert.match(again, /try again/);
        assert.match(again, /pick a colour/);
    });
    d.child.stdin.end();
    assert.equal(await d.exited, 0);
}
writeFileSync(WORK + "/acp-sdk-ok", "ok\n");
console.log("acp sdk test: ok");
