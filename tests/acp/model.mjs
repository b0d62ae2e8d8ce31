// model.mjs — model selection through the official SDK's client: session/new lists the
// config options "mode" and "model" (category model: the model in use, hew's table's
// models of the provider); session/set_config_option "model" between turns switches the
// session's model — the next prompt's request names it and goes on with the same
// conversation; an unknown model is -32602; "mode" switches the mode. Run by
// tests/e2e/acp_model.sh.
import { acp, assert, WORK, startAgent, stopAgent, requests, messageText } from "./lib.mjs";

const option = (opts, id) => opts.find((o) => o.id === id);
const a = startAgent();
await a.app.connectWith(a.stream, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION });
    const created = await ctx.request("session/new", { cwd: WORK, mcpServers: [] });
    const { sessionId } = created;
    const model = option(created.configOptions, "model");
    assert.equal(model.category, "model");
    assert.equal(model.type, "select");
    assert.equal(model.currentValue, "claude-sonnet-4-5");
    const values = model.options.map((o) => o.value);
    assert.ok(values.includes("claude-opus-4-5"), "the table's models: " + values.join(" "));
    assert.ok(values.every((v) => v.startsWith("claude-")), "another provider's model offered");
    assert.equal(option(created.configOptions, "mode").currentValue, "act");

    let r = await ctx.request("session/prompt", { sessionId,
        prompt: [{ type: "text", text: "first with sonnet" }] });
    assert.equal(r.stopReason, "end_turn");
    assert.equal(requests()[0].body.model, "claude-sonnet-4-5");

    const set = await ctx.request("session/set_config_option", { sessionId, configId: "model",
        value: "claude-opus-4-5" });
    assert.equal(option(set.configOptions, "model").currentValue, "claude-opus-4-5");
    await assert.rejects(ctx.request("session/set_config_option", { sessionId, configId: "model",
        value: "no-such-model" }), (e) => e.code === -32602 && /unknown model/.test(e.message));

    r = await ctx.request("session/prompt", { sessionId,
        prompt: [{ type: "text", text: "then with opus" }] });
    assert.equal(r.stopReason, "end_turn");
    assert.match(messageText(a), /Second\./);
    const second = requests()[1].body;
    assert.equal(second.model, "claude-opus-4-5", "the chosen model was not used");
    const body = JSON.stringify(second);
    assert.match(body, /then with opus/);
    assert.match(body, /first with sonnet/, "the conversation was lost with the switch");

    const planned = await ctx.request("session/set_config_option", { sessionId, configId: "mode",
        value: "plan" });
    assert.equal(option(planned.configOptions, "mode").currentValue, "plan");
    assert.equal(option(planned.configOptions, "model").currentValue, "claude-opus-4-5");
});
await stopAgent(a);
console.log("acp model test: ok");
