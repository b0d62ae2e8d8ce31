// term.mjs — commands in the client's terminal: a client that offers `terminal` in
// initialize gets the commands hew would run WITHOUT its sandbox (here: approved by hand,
// allow_once, under the "auto" sandbox) as terminal/create {command: the shell, args:
// ["-c", the command], cwd}, polled with terminal/output and released; the model sees the
// terminal's output (fabricated here: running the command would print "from-42") and the
// tool call's content is the terminal. A command hew runs confined (--yolo: approved
// automatically) runs locally even with the capability; without the capability, local as
// before. A session/cancel during a long client command: terminal/kill, the prompt answers
// "cancelled". Run by tests/e2e/acp_term.sh (its scenario: command, completion, thrice,
// then a long command).
import { acp, assert, WORK, hewArgs, startAgent, stopAgent, requests, pick, ofKind } from "./lib.mjs";

const FAKE_OUT = "fabricated by the client's terminal\n";

// The client's terminal: records every terminal/* request; output() says what it shows.
function terminal(output) {
    const t = { calls: [] };
    t.handlers = {};
    for (const m of ["create", "output", "wait_for_exit", "kill", "release"])
        t.handlers["terminal/" + m] = (p) => {
            t.calls.push({ method: m, params: p });
            if (m === "create")
                return { terminalId: "term-1" };
            if (m === "output")
                return output();
            if (m === "wait_for_exit")
                return { exitCode: 0, signal: null };
            return {};
        };
    t.of = (m) => t.calls.filter((c) => c.method === m);
    return t;
}

const until = async (cond, what) => {
    const end = Date.now() + 20000;
    while (!cond() && Date.now() < end)
        await new Promise((res) => setTimeout(res, 20));
    assert.ok(cond(), what);
};

async function session(a, caps, text) {
    let r;
    await a.app.connectWith(a.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: caps });
        const { sessionId } = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
        a.sessionId = sessionId;
        a.decide = pick("allow_once");
        r = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    });
    await stopAgent(a);
    return r;
}

// ---- approved by hand: the client's terminal ----------------------------------------------
{
    let polls = 0;
    const t = terminal(() => (++polls < 2 ? { output: "", truncated: false }
        : { output: FAKE_OUT, truncated: false, exitStatus: { exitCode: 0, signal: null } }));
    const a = startAgent({ handlers: t.handlers });
    const r = await session(a, { terminal: true }, "run it");
    assert.equal(r.stopReason, "end_turn");
    assert.equal(a.permissions.length, 1, "the command asked the client's permission");
    const created = t.of("create");
    assert.equal(created.length, 1, "terminal/create was not called once: " + JSON.stringify(t.calls));
    const c = created[0].params;
    assert.equal(c.sessionId, a.sessionId);
    assert.deepEqual(c.args, ["-c", "echo from-$((6*7))"]);
    assert.match(c.command, /^\//, "the shell, by its absolute path");
    assert.equal(c.cwd, WORK);
    assert.ok(!c.env || c.env.length === 0, "hew sent environment variables: " + JSON.stringify(c.env));
    assert.ok(t.of("output").length >= 2, "hew polled terminal/output");
    assert.equal(t.of("release").length, 1, "the terminal was released");
    assert.equal(t.of("kill").length, 0, "a command that ended was killed");
    const term = ofKind(a, "tool_call_update").find((u) =>
        (u.update.content ?? []).some((x) => x.type === "terminal" && x.terminalId === "term-1"));
    assert.ok(term, "no tool_call_update with the terminal content");
    const seen = JSON.stringify(requests()[1].body);
    assert.match(seen, /fabricated by the client's terminal/, "the terminal's output did not reach the model");
    assert.ok(!seen.includes("from-42"), "the command ran locally too");
}

// ---- approved automatically (--yolo: confined): hew runs it, not the client -------------------
{
    const t = terminal(() => ({ output: FAKE_OUT, truncated: false,
        exitStatus: { exitCode: 0, signal: null } }));
    const a = startAgent({ handlers: t.handlers, args: [...hewArgs, "--yolo"] });
    const r = await session(a, { terminal: true }, "run it confined");
    assert.equal(r.stopReason, "end_turn");
    assert.equal(t.calls.length, 0, "a confined command went to the client's terminal");
    const seen = JSON.stringify(requests()[3].body);
    assert.match(seen, /from-42/, "the command did not run locally");
    assert.ok(!seen.includes("fabricated"), "the client's output reached the model");
}

// ---- without the capability: local, as before -------------------------------------------------
{
    const t = terminal(() => ({ output: FAKE_OUT, truncated: false,
        exitStatus: { exitCode: 0, signal: null } }));
    const a = startAgent({ handlers: t.handlers });
    const r = await session(a, { terminal: false }, "run it here");
    assert.equal(r.stopReason, "end_turn");
    assert.equal(a.permissions.length, 1);
    assert.equal(t.calls.length, 0, "the client was asked for a terminal it does not offer");
    assert.match(JSON.stringify(requests()[5].body), /from-42/, "the command did not run locally");
}

// ---- a cancel during a long command in the client's terminal: terminal/kill -------------------
{
    const t = terminal(() => ({ output: "still going\n", truncated: false }));
    const a = startAgent({ handlers: t.handlers });
    await a.app.connectWith(a.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { terminal: true } });
        const { sessionId } = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
        a.decide = pick("allow_once");
        const p = ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "run the long one" }] });
        await until(() => t.of("output").length >= 2, "hew did not poll the client's terminal");
        assert.equal(t.of("create")[0].params.args[1], "sleep 600");
        await ctx.notify("session/cancel", { sessionId });
        const r = await p;
        assert.equal(r.stopReason, "cancelled", "a cancel during the client's command");
        await until(() => t.of("kill").length === 1, "terminal/kill was not called");
        await until(() => t.of("release").length === 1, "terminal/release was not called");
    });
    await stopAgent(a);
}
console.log("acp term test: ok");
