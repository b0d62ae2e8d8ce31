// stops.mjs — how a prompt ends besides end_turn and cancelled, through the official SDK's
// client: without an API key session/new answers -32000 (auth_required, the SDK's
// RequestError.authRequired) naming the variable to set; an answer the provider cut at
// its output limit (Anthropic stop_reason max_tokens) ends the prompt with stopReason
// max_tokens, a refused one (stop_reason refusal) with refusal; each time the next prompt
// goes on with the same conversation. Run by tests/e2e/acp_stops.sh.
import { acp, assert, WORK, startAgent, stopAgent, requests, messageText } from "./lib.mjs";

// ---- no API key ---------------------------------------------------------------------------
{
    const env = { ...process.env };
    delete env.ANTHROPIC_API_KEY;
    const a = startAgent({ env });
    await a.app.connectWith(a.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
        await assert.rejects(ctx.request("session/new", { cwd: WORK, mcpServers: [] }), (e) => {
            assert.equal(e.code, -32000, "auth_required");
            assert.match(e.message, /ANTHROPIC_API_KEY/);
            assert.match(e.message, /--api-key-file/);
            return true;
        });
    });
    await stopAgent(a);
    assert.equal(requests().length, 0);
}

// ---- max_tokens, refusal, then the conversation goes on -------------------------------------
{
    const b = startAgent();
    await b.app.connectWith(b.stream, async (ctx) => {
        await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
        const { sessionId } = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
        let r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "write a very long essay" }] });
        assert.equal(r.stopReason, "max_tokens");
        assert.match(messageText(b), /An essay that was cut/);
        assert.equal(requests().length, 1, "the task went on after the cut answer");

        r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "now something you will not do" }] });
        assert.equal(r.stopReason, "refusal");
        assert.match(messageText(b), /I will not do that\./);
        assert.equal(requests().length, 2, "the task went on after the refusal");
        assert.match(JSON.stringify(requests()[1].body), /now something you will not do/);

        r = await ctx.request("session/prompt", { sessionId,
            prompt: [{ type: "text", text: "then just finish" }] });
        assert.equal(r.stopReason, "end_turn");
        assert.match(messageText(b), /Finished after all\./);
        const body = JSON.stringify(requests()[2].body);
        assert.match(body, /then just finish/);
        assert.match(body, /write a very long essay/, "the conversation was lost");
    });
    await stopAgent(b);
}
console.log("acp stops test: ok");
