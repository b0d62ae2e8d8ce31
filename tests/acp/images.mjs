// images.mjs — images in ACP prompts, through the official SDK's client: initialize
// offers promptCapabilities.image for a model that reads images (and not for one that
// does not); the first prompt's image block (base64 PNG) reaches the model as an image in
// the task's first message; an image in a later prompt, a type hew does not attach and
// data that is not base64 are -32602. Run by tests/e2e/acp_images.sh (ACP_IMAGE: a small
// PNG file).
import { readFileSync } from "node:fs";
import { acp, assert, WORK, hewArgs, startAgent, stopAgent, requests, messageText } from "./lib.mjs";

const png = readFileSync(process.env.ACP_IMAGE).toString("base64");

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

// ---- a model with images -----------------------------------------------------------------------
{
    const b = startAgent();
    await b.app.connectWith(b.stream, async (ctx) => {
        const init = await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
        assert.equal(init.agentCapabilities.promptCapabilities.image, true);
        const { sessionId } = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
        const bad = async (block, re) => assert.rejects(ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "look" }, block] }), (e) => {
            assert.equal(e.code, -32602);
            assert.match(e.message, re);
            return true;
        });
        await bad({ type: "image", mimeType: "image/bmp", data: png }, /image\/png/);
        await bad({ type: "image", mimeType: "image/png", data: "not*base64!" }, /base64/);
        assert.equal(requests().length, 0);

        const r = await ctx.request("session/prompt", { sessionId, prompt: [
            { type: "text", text: "what is in this picture?" },
            { type: "image", mimeType: "image/png", data: png }] });
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(b), /A small picture\./);
        const first = requests()[0].body.messages[0];
        const image = first.content.find((c) => c.type === "image");
        assert.ok(image, "the image did not reach the model: " + JSON.stringify(first).slice(0, 400));
        assert.equal(image.source.media_type, "image/png");
        assert.equal(image.source.data, png, "the image's bytes changed on the way");
        assert.match(JSON.stringify(first), /what is in this picture\?/);

        await bad({ type: "image", mimeType: "image/png", data: png }, /first prompt/);
    });
    await stopAgent(b);
}
console.log("acp images test: ok");
