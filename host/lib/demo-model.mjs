// host/lib/demo-model.mjs: the scripted model of `cli-sandbox demo` (host/lib/demo.sh).
// Node's standard library only. It serves Anthropic Messages (POST .../v1/messages, SSE or
// JSON, and .../count_tokens): what claude, pi and opencode speak to the gateway, which
// forwards it here. It runs in a container of the sandbox's image on an internal network,
// as an unprivileged user, with no route out; the demo mounts this file read-only.
//
// The script: every request that offers a shell tool (claude's Bash, pi's and opencode's
// bash) is answered by the step its conversation has reached, counted by the tool results it
// carries: a tool call of step N for N results, then a final text. Requests that offer no
// shell tool (titles, summaries) get a short text. Each tool result received is printed on
// stdout, a line "result STEP | TEXT" for each of its lines, between "result STEP begin
// is_error=BOOL" and "result STEP end": the demo judges by what the model received, never by
// the CLI's exit status. Other events are lines "event {JSON}".
//
// usage: node demo-model.mjs --listen ADDRESS --port PORT [--probe A.B.C.D:PORT] [--max-seconds N]
import http from 'node:http';
import crypto from 'node:crypto';

const args = process.argv.slice(2);
function opt(name, fallback) {
	const i = args.indexOf(name);
	return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}
const listen = opt('--listen', '0.0.0.0');
const port = Number(opt('--port', '8080'));
const maxSeconds = Number(opt('--max-seconds', '600'));
// An address on the sandbox's own network that nobody holds: the kernel routes it (on-link),
// so only the firewall stops it, where the outside addresses may already lack a route.
const probe = opt('--probe', '');

// The steps, in order. Each command prints what the demo judges; none needs more than bash
// and coreutils (the image has no curl): a TCP connect through bash's /dev/tcp, timed.
// Each prints "connect HOST:PORT rc=N ms=N error=TEXT", TEXT the last words of bash's error
// ("Connection refused": the firewall's reset; "Network is unreachable": no route at all).
const connect = (host, p) =>
	`t=$(date +%s%N); e=$(timeout 5 bash -c 'exec 3<>/dev/tcp/${host}/${p}' 2>&1); ` +
	`rc=$?; echo "connect ${host}:${p} rc=$rc ms=$(( ($(date +%s%N) - t) / 1000000 )) error=\${e##*: }"`;
const targets = [['203.0.113.10', 443], ['169.254.169.254', 80]];
if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(probe)) targets.push(probe.split(':'));
const STEPS = [
	{ name: 'write', command: "echo 'hello from the sandbox' > /workspace/hello.txt && echo wrote /workspace/hello.txt" },
	{ name: 'connect', command: `${targets.map(([h, p]) => connect(h, p)).join('; ')}; sleep 0.3; echo '--- /run/cli-sandbox/blocked.log'; cat /run/cli-sandbox/blocked.log` },
	{ name: 'env', command: 'env | grep -i -e key -e token; echo "grep rc=$?"' },
	{ name: 'identity', command: 'id; grep Cap /proc/self/status' },
];
const FINAL = 'Done: hello.txt written; the firewall refused both connections; no key in my environment; no capabilities.';

const log = (obj) => process.stdout.write('event ' + JSON.stringify(obj) + '\n');

function textOf(content) {
	if (typeof content === 'string') return content;
	if (Array.isArray(content)) return content.map((p) => (p && typeof p.text === 'string' ? p.text : '')).join('\n');
	return '';
}

// The shell tool a request offers: its name and input schema, or null.
function shellTool(body) {
	const tools = Array.isArray(body.tools) ? body.tools : [];
	const usable = tools.filter((t) => t && typeof t.name === 'string' && t.input_schema &&
		t.input_schema.properties && t.input_schema.properties.command);
	return usable.find((t) => t.name === 'Bash' || t.name === 'bash') || usable[0] || null;
}

// The tool results a conversation carries, in order.
function toolResults(body) {
	const found = [];
	for (const m of Array.isArray(body.messages) ? body.messages : []) {
		if (!m || !Array.isArray(m.content)) continue;
		for (const b of m.content) {
			if (b && b.type === 'tool_result') found.push({ text: textOf(b.content), is_error: b.is_error === true });
		}
	}
	return found;
}

// The tool's input for a command: every required property filled (a description where asked).
function toolInput(tool, command) {
	const input = { command };
	const props = tool.input_schema.properties || {};
	for (const name of tool.input_schema.required || []) {
		if (name in input) continue;
		const type = props[name] && props[name].type;
		input[name] = type === 'number' || type === 'integer' ? 60 : type === 'boolean' ? false : 'cli-sandbox demo step';
	}
	if ('description' in props && !('description' in input)) input.description = 'cli-sandbox demo step';
	return input;
}

const seen = new Set(); // results already printed: a CLI resends the whole conversation each turn

function turn(body) {
	const tool = shellTool(body);
	if (!tool) return { text: 'cli-sandbox demo' };
	const results = toolResults(body);
	results.forEach((r, i) => {
		const step = STEPS[i] ? STEPS[i].name : `extra${i}`;
		const id = `${i}:${crypto.createHash('sha256').update(r.text).digest('hex')}`;
		if (seen.has(id)) return;
		seen.add(id);
		// One line per line of the result, so that a shell reads it back with sed.
		const lines = r.text.split('\n').map((l) => `result ${step} | ${l.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '?')}`);
		process.stdout.write(`result ${step} begin is_error=${r.is_error}\n${lines.join('\n')}\nresult ${step} end\n`);
	});
	const next = STEPS[results.length];
	if (!next) return { text: FINAL, final: true };
	log({ call: next.name, tool: tool.name });
	return { tool: tool.name, input: toolInput(tool, next.command) };
}

function sse(res, event, data) {
	res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

function answer(req, res, body) {
	const t = turn(body);
	if (t.final) log({ final: true });
	const model = typeof body.model === 'string' ? body.model : 'demo-model';
	const id = 'msg_' + crypto.randomBytes(12).toString('hex');
	const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
	const block = t.tool
		? { type: 'tool_use', id: 'toolu_' + crypto.randomBytes(12).toString('hex'), name: t.tool, input: t.input }
		: { type: 'text', text: t.text };
	const stop = t.tool ? 'tool_use' : 'end_turn';
	if (!body.stream) {
		const data = JSON.stringify({ id, type: 'message', role: 'assistant', model, content: [block],
			stop_reason: stop, stop_sequence: null, usage });
		res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
		res.end(data);
		return;
	}
	res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
	sse(res, 'message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model,
		content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 0 } } });
	const start = t.tool ? { ...block, input: {} } : { type: 'text', text: '' };
	const delta = t.tool ? { type: 'input_json_delta', partial_json: JSON.stringify(t.input) }
		: { type: 'text_delta', text: t.text };
	sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: start });
	sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta });
	sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
	sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null },
		usage: { output_tokens: 1 } });
	sse(res, 'message_stop', { type: 'message_stop' });
	res.end();
}

function json(res, status, obj) {
	const data = JSON.stringify(obj);
	res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) });
	res.end(data);
}

const MAX_BODY = 32 * 1024 * 1024;
const server = http.createServer((req, res) => {
	const path = (req.url || '').split('?')[0].replace(/\/+$/, '');
	const chunks = [];
	let size = 0;
	req.on('data', (c) => {
		size += c.length;
		if (size > MAX_BODY) req.destroy();
		else chunks.push(c);
	});
	req.on('end', () => {
		let body = {};
		try { body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}'); } catch { body = {}; }
		if (body === null || typeof body !== 'object') body = {};
		// Whether the model call carried a key, never its value: the gateway sends the
		// endpoint's key upstream, the sandbox only a token the gateway accepts.
		if (req.method === 'POST' && path.endsWith('/v1/messages')) {
			log({ request: path, key: Boolean(req.headers['x-api-key'] || req.headers.authorization) });
			answer(req, res, body);
		} else if (req.method === 'POST' && path.endsWith('/messages/count_tokens')) {
			json(res, 200, { input_tokens: 1 });
		} else if (req.method === 'GET' && path.endsWith('/models')) {
			json(res, 200, { data: [{ type: 'model', id: 'demo-model', display_name: 'demo-model' }], has_more: false });
		} else if (path === '' || path === '/health') {
			json(res, 200, { status: 'ok' });
		} else {
			json(res, 404, { type: 'error', error: { type: 'not_found_error', message: `demo model: no ${path}` } });
		}
	});
});
server.listen(port, listen, () => process.stdout.write(`demo-model listening on ${listen} ${port}\n`));
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
setTimeout(() => process.exit(0), maxSeconds * 1000).unref();
