// fs.mjs — fs delegation: a client that offers fs.readTextFile and fs.writeTextFile in
// initialize gets hew's file reads and edits as fs/read_text_file and fs/write_text_file
// requests (absolute paths), so the model reads the editor's buffer — here a text that
// differs from the disk's — and the approved edit arrives through writeTextFile, the disk
// unchanged; a client that offers none has hew read and write the disk. Run by
// tests/e2e/acp_fs.sh (its scenario: read, edit, complete, twice). Then: the client's error
// answer to fs/read_text_file reaches the model as the tool's error, and a session/cancel
// while hew waits for the client's answer ends the prompt "cancelled".
import { readFileSync } from "node:fs";
import { acp, assert, WORK, startAgent, stopAgent, requests, pick, messageText } from "./lib.mjs";

const FILE = WORK + "/buf.txt";
const DISK = "the disk's line\n";
const BUFFER = "the editor's unsaved line\n";

// ---- with fs capabilities: the client's buffers -----------------------------------------
{
    const reads = [], writes = [];
    const a = startAgent({ handlers: {
        "fs/read_text_file": (p) => { reads.push(p); return { content: BUFFER }; },
        "fs/write_text_file": (p) => { writes.push(p); return {}; },
    } });
    await a.app.connectWith(a.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
        const { sessionId } = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
        a.decide = pick("allow_once");
        const r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "fix buf.txt" }] });
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(a), /Edited the buffer\./);
        assert.ok(reads.length >= 2, "the read and the edit asked the client for the text");
        for (const p of reads) {
            assert.equal(p.sessionId, sessionId);
            assert.equal(p.path, FILE, "fs/read_text_file with the absolute path");
        }
        assert.equal(writes.length, 1, "the edit went to fs/write_text_file");
        assert.deepEqual(writes[0], { sessionId, path: FILE, content: "the editor's edited line\n" });
        const edit = a.permissions[0].toolCall.content.find((c) => c.type === "diff");
        assert.equal(edit.oldText, BUFFER, "the edit's diff starts from the buffer");
    });
    await stopAgent(a);
    const seen = JSON.stringify(requests()[1].body);
    assert.match(seen, /the editor's unsaved line/, "the model did not read the buffer");
    assert.ok(!seen.includes("the disk's line"), "the model read the disk");
    assert.equal(readFileSync(FILE, "utf8"), DISK, "hew wrote the disk itself");
}

// ---- without: the disk ----------------------------------------------------------------------
{
    const asked = [];
    const b = startAgent({ handlers: {
        "fs/read_text_file": (p) => { asked.push(p); return { content: BUFFER }; },
        "fs/write_text_file": (p) => { asked.push(p); return {}; },
    } });
    await b.app.connectWith(b.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } });
        const { sessionId } = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
        b.decide = pick("allow_once");
        const r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "fix buf.txt on disk" }] });
        assert.equal(r.stopReason, "end_turn");
    });
    await stopAgent(b);
    assert.equal(asked.length, 0, "the client was asked for files it does not offer");
    assert.match(JSON.stringify(requests()[4].body), /the disk's line/);
    assert.equal(readFileSync(FILE, "utf8"), "the disk's edited line\n");
}
// ---- the client's errors, and a cancel while hew waits for the client's answer ---------------
{
    let pendingRead = null;
    let mode = "error";
    const c = startAgent({ handlers: {
        "fs/read_text_file": () => {
            if (mode === "error")
                throw new acp.RequestError(-32603, "the buffer is locked");
            return new Promise((resolve) => { pendingRead = resolve; }); // never answered
        },
        "fs/write_text_file": () => ({}),
    } });
    await c.app.connectWith(c.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION,
            clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } } });
        const { sessionId } = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
        let r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "read buf.txt" }] });
        assert.equal(r.stopReason, "end_turn");
        const told = JSON.stringify(requests()[7].body);
        assert.match(told, /the buffer is locked/, "the client's error did not reach the model");
        mode = "hang";
        const p = ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "read it again" }] });
        const end = Date.now() + 20000;
        while (!pendingRead && Date.now() < end)
            await new Promise((res) => setTimeout(res, 20));
        assert.ok(pendingRead, "hew did not ask the client for the file");
        await ctx.notify("session/cancel", { sessionId });
        r = await p;
        assert.equal(r.stopReason, "cancelled", "a cancel while hew waited for the client");
        pendingRead({ content: "too late\n" }); // a late answer is ignored
    });
    await stopAgent(c);
}
console.log("acp fs test: ok");
