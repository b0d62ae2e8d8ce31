// images.mjs — images in ACP prompts, through the official SDK's client: initialize
// offers promptCapabilities.image for a model that reads images (and not for one that
// does not); a prompt's image blocks (base64) reach the model unchanged (a small PNG is
// sent as it is) in every prompt of a session: the first one's in the task's first
// message; a later one's, answering the completion, in the completion's tool result right
// after the answer's text (native tools: inside the tool_result; XML tools: the block
// after the text); an image-only answer; after session/load in a new process, in the
// resumed request right after the "[TASK RESUMPTION]" note. A type hew does not attach,
// data that is not base64, a damaged image (first prompt, later prompt, resume) and an
// image-only first prompt are -32602, and the task goes on at the next prompt; the stored
// answer with an image replays on load. Run by tests/e2e/acp_images.sh (ACP_IMAGE: a
// small PNG file; ACP_DAMAGED: a PNG cut short).
import { readFileSync, writeFileSync } from "node:fs";
import { acp, assert, WORK, hewArgs, startAgent, stopAgent, requests, messageText } from "./lib.mjs";

const png = readFileSync(process.env.ACP_IMAGE).toString("base64");
const damaged = readFileSync(process.env.ACP_DAMAGED).toString("base64");

// The last user message of the request the fake got n-th (from 0).
const lastUser = (n) => requests()[n].body.messages.filter((m) => m.role === "user").at(-1);
// The blocks of a user message's content (a string is one text block).
const blocksOf = (content) => (typeof content === "string" ? [{ type: "text", text: content }] : content);
// Whether block is the PNG of the test, sent as the client sent it.
const isOurPng = (block) => block?.type === "image" && block.source?.media_type === "image/png" &&
    block.source?.data === png;
// The block right after the text block that holds text, in blocks.
function afterText(blocks, text) {
    const i = blocks.findIndex((b) => b.type === "text" && b.text.includes(text));
    assert.ok(i >= 0, `no text block with ${JSON.stringify(text)}: ${JSON.stringify(blocks).slice(0, 600)}`);
    return blocks[i + 1];
}
// The content of the tool_result for toolUseId in a user message.
function toolResult(msg, toolUseId) {
    const r = blocksOf(msg.content).find((b) => b.type === "tool_result" && b.tool_use_id === toolUseId);
    assert.ok(r, `no tool_result for ${toolUseId}: ${JSON.stringify(msg).slice(0, 600)}`);
    return blocksOf(r.content);
}
// A prompt's refusal: -32602 with a message matching re.
const refused = (re) => (e) => {
    assert.equal(e.code, -32602, JSON.stringify(e));
    assert.match(e.message, re);
    return true;
};

// ---- a model without images: not offered --------------------------------------------------
{
    const args = hewArgs.map((a) => (a === "claude-sonnet-4-5" ? "claude-2.0" : a));
    const a = startAgent({ args });
    await a.app.connectWith(a.stream, async (ctx) => {
        const init = await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
        assert.equal(init.agentCapabilities.promptCapabilities.image, false);
    });
    await stopAgent(a);
}

// ---- a model with images: every prompt of a session takes them ----------------------------
let sessionId;
{
    const b = startAgent();
    await b.app.connectWith(b.stream, async (ctx) => {
        const init = await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
        assert.equal(init.agentCapabilities.promptCapabilities.image, true);
        ({ sessionId } = await ctx.request("session/new", { cwd: WORK, mcpServers: [] }));
        writeFileSync(`${WORK}/acp-session-id`, sessionId); // the .sh reads its stored answers
        const prompt = (...blocks) => ctx.request("session/prompt", { sessionId, prompt: blocks });
        const text = (t) => ({ type: "text", text: t });
        const image = (data, more = {}) => ({ type: "image", mimeType: "image/png", data, ...more });
        const bad = async (block, re) => assert.rejects(prompt(text("look"), block), refused(re));
        await bad({ type: "image", mimeType: "image/bmp", data: png }, /image\/png/);
        await bad(image("not*base64!"), /base64/);
        await bad(image(damaged), /image 1/);
        await assert.rejects(prompt(image(png)), refused(/no text/));
        assert.equal(requests().length, 0);

        // the first prompt: the image in the task's first message
        let r = await prompt(text("what is in this picture?"), image(png));
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(b), /A small picture\./);
        const first = requests()[0].body.messages[0];
        assert.ok(isOurPng(first.content.find((c) => c.type === "image")),
            "the image did not reach the model unchanged: " + JSON.stringify(first).slice(0, 400));
        assert.match(JSON.stringify(first), /what is in this picture\?/);

        // a later prompt: the answer to the completion, the image right after its text
        r = await prompt(text("what about this one?"), image(png, { uri: "file:///shots/second.png" }));
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(b), /The second picture\./);
        assert.equal(requests().length, 2);
        const result = toolResult(lastUser(1), "toolu_i1");
        assert.ok(isOurPng(afterText(result, "what about this one?")),
            "the later prompt's image is not right after its text in the tool result: " +
            JSON.stringify(result).slice(0, 800));

        // a damaged image in a later prompt: refused, and the completion still waits
        await assert.rejects(prompt(text("and this?"), image(damaged)), refused(/image 1/));
        assert.equal(requests().length, 2);
        r = await prompt(text("thanks, go on"));
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(b), /Going on\./);
        const plain = toolResult(lastUser(2), "toolu_i2");
        assert.match(JSON.stringify(plain), /thanks, go on/);
        assert.ok(!plain.some((c) => c.type === "image"), "the refused image was sent");

        // an answer of an image alone
        r = await prompt(image(png));
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(b), /Only a picture\./);
        assert.ok(toolResult(lastUser(3), "toolu_i3").some(isOurPng), "the image-only answer was not sent");
    });
    await stopAgent(b);
}

// ---- session/load in a new process: the resumed request carries the prompt's image ----------
{
    const c = startAgent();
    await c.app.connectWith(c.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
        await ctx.request("session/load", { sessionId, cwd: WORK, mcpServers: [] });
        const users = messageText(c, "user_message_chunk");
        assert.match(users, /what is in this picture\?/);
        assert.match(users, /what about this one\?/, "the stored answer with an image was not replayed");
        const prompt = (...blocks) => ctx.request("session/prompt", { sessionId, prompt: blocks });
        // an image alone may resume the task: this one, damaged, is refused before the task
        // is resumed (by the library's check, not for want of text); the next prompt resumes it
        await assert.rejects(prompt({ type: "image", mimeType: "image/png", data: damaged }),
            refused(/image 1/));
        assert.equal(requests().length, 4);
        const r = await prompt({ type: "text", text: "look again" },
            { type: "image", mimeType: "image/png", data: png });
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(c), /Resumed with it\./);
        const resumed = blocksOf(lastUser(4).content);
        assert.ok(isOurPng(afterText(resumed, "[TASK RESUMPTION]")),
            "the image is not right after the resume note: " + JSON.stringify(resumed).slice(0, 800));
        assert.match(JSON.stringify(resumed), /look again/);
    });
    await stopAgent(c);
}

// ---- XML tools: the image block right after the answer's text -----------------------------
{
    const d = startAgent({ args: hewArgs.map((a) => (a === "--native-tools" ? "--xml-tools" : a)) });
    await d.app.connectWith(d.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
        const { sessionId: id } = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
        let r = await ctx.request("session/prompt", { sessionId: id,
            prompt: [{ type: "text", text: "describe the workspace" }] });
        assert.equal(r.stopReason, "end_turn");
        r = await ctx.request("session/prompt", { sessionId: id, prompt: [
            { type: "text", text: "and this picture?" },
            { type: "image", mimeType: "image/png", data: png }] });
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(d), /An XML picture\./);
        const blocks = blocksOf(lastUser(6).content);
        assert.ok(isOurPng(afterText(blocks, "and this picture?")),
            "the image is not right after the answer's text: " + JSON.stringify(blocks).slice(0, 800));
    });
    await stopAgent(d);
}
console.log("acp images test: ok");
