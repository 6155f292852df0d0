// cli-sandbox ping, the part that runs where the CLI (or the gateway) runs: inside the
// sandbox image behind its managed firewall, or inside the gateway's container for the
// upstream. Node >= 20, no dependencies. Prints one JSON object per check, one a line.
//
// Environment: PING_URL (the base URL as the CLI gets it), PING_API (anthropic, responses,
// chat or ollama), PING_MODEL, PING_KEY_VAR (the NAME of the variable with the credential),
// PING_TOOLS (1: also the tool-call check), PING_CHECK (the name printed: direct or gateway).
const url = (process.env.PING_URL || "").replace(/\/$/, "");
const api = process.env.PING_API;
const model = process.env.PING_MODEL || "default";
const key = process.env[process.env.PING_KEY_VAR || ""] || "";
const check = process.env.PING_CHECK || "direct";
const TOOL = { name: "cli_sandbox_ping", description: "Report that the sandbox can call tools.",
  schema: { type: "object", properties: { word: { type: "string", description: "the word pong" } }, required: ["word"] } };

function base(kind) {
  if (kind === "anthropic" || kind === "ollama") return url.replace(/\/v1$/, "");
  return /\/v1$/.test(url) ? url : url + "/v1";
}

async function post(path, body) {
  const headers = { "content-type": "application/json" };
  if (key) { headers["x-api-key"] = key; headers.authorization = "Bearer " + key; }
  if (api === "anthropic") headers["anthropic-version"] = "2023-06-01";
  const t0 = performance.now();
  const res = await fetch(path, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(120000) });
  const text = await res.text();
  const ms = Math.round(performance.now() - t0);
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  if (!res.ok) throw new Error(`HTTP ${res.status} from ${path}: ${text.slice(0, 200)}`);
  return { json: json || {}, ms };
}

const PROMPT = "Reply with the single word pong.";
const TOOL_PROMPT = "Call the tool cli_sandbox_ping with word set to pong. Do not answer in text.";

async function ask(tools) {
  const prompt = tools ? TOOL_PROMPT : PROMPT;
  if (api === "anthropic") {
    const body = { model, max_tokens: 64, messages: [{ role: "user", content: prompt }] };
    if (tools) body.tools = [{ name: TOOL.name, description: TOOL.description, input_schema: TOOL.schema }];
    const r = await post(base("anthropic") + "/v1/messages", body);
    const blocks = r.json.content || [];
    return { ms: r.ms, text: blocks.filter(b => b.type === "text").map(b => b.text).join(""),
      call: blocks.find(b => b.type === "tool_use" && b.name === TOOL.name) };
  }
  if (api === "responses") {
    const body = { model, input: prompt, stream: false };
    if (tools) body.tools = [{ type: "function", name: TOOL.name, description: TOOL.description, parameters: TOOL.schema }];
    const r = await post(base("responses") + "/responses", body);
    const out = r.json.output || [];
    const text = out.filter(o => o.type === "message").flatMap(o => o.content || []).map(c => c.text || "").join("");
    return { ms: r.ms, text, call: out.find(o => o.type === "function_call" && o.name === TOOL.name) };
  }
  if (api === "chat") {
    const body = { model, messages: [{ role: "user", content: prompt }], stream: false };
    if (tools) body.tools = [{ type: "function", function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema } }];
    const r = await post(base("chat") + "/chat/completions", body);
    const msg = ((r.json.choices || [])[0] || {}).message || {};
    return { ms: r.ms, text: msg.content || "", call: (msg.tool_calls || []).find(c => c.function && c.function.name === TOOL.name) };
  }
  // Ollama's native API: whether the model was loaded, and its load time apart.
  let loaded = null;
  try {
    const ps = await fetch(base("ollama") + "/api/ps", { signal: AbortSignal.timeout(10000) }).then(r => r.json());
    loaded = (ps.models || []).some(m => m.name === model || m.model === model || m.name === model + ":latest");
  } catch { /* older Ollama: unknown */ }
  const body = { model, messages: [{ role: "user", content: prompt }], stream: false };
  if (tools) body.tools = [{ type: "function", function: { name: TOOL.name, description: TOOL.description, parameters: TOOL.schema } }];
  const r = await post(base("ollama") + "/api/chat", body);
  const msg = r.json.message || {};
  return { ms: r.ms, text: msg.content || "", call: (msg.tool_calls || []).find(c => c.function && c.function.name === TOOL.name),
    load_ms: Math.round((r.json.load_duration || 0) / 1e6), cold: loaded === null ? null : !loaded };
}

function line(o) { process.stdout.write(JSON.stringify(o) + "\n"); }

let failed = false;
try {
  const a = await ask(false);
  const o = { check, ok: true, ms: a.ms, api, reply: a.text.slice(0, 80) };
  if ("load_ms" in a) { o.load_ms = a.load_ms; o.cold = a.cold; }
  line(o);
} catch (e) {
  failed = true;
  line({ check, ok: false, api, error: String(e.cause ? e.cause.code || e.cause.message || e.message : e.message) });
}
if (!failed && process.env.PING_TOOLS === "1") {
  try {
    const a = await ask(true);
    if (a.call) line({ check: "tools", ok: true, ms: a.ms, api, tool: TOOL.name });
    else line({ check: "tools", ok: false, ms: a.ms, api, error: "the model answered in plain text, not a structured tool call",
      reply: a.text.slice(0, 80), hint: "pick a model that calls tools ('cli-sandbox models catalog' for Ollama)" });
  } catch (e) {
    line({ check: "tools", ok: false, api, error: String(e.message) });
  }
}
