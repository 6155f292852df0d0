// The key broker's request handler (docs/broker.md). For every request it checks, in this
// order: the run's token (a file named by the token's SHA-256 must exist in the tokens
// directory), the API's own path and method, the model. Only then is the request passed to
// the upstream, the token's header replaced by the endpoint's key. Every refusal is the
// API's own JSON error; nothing here throws to nginx (a throw would be a bare 500).
import fs from 'fs';
import crypto from 'crypto';

const TOKENS_DIR = '/run/broker/tokens/';
const KEY_FILE = '/run/broker/key';
const TOKEN_RE = /^[A-Za-z0-9._~+\/=-]{16,256}$/;
// A model name as the project holds it everywhere (issue 32): no quote, space or slash games.
const MODEL_RE = /^[A-Za-z0-9][A-Za-z0-9._:@\/+-]{0,127}$/;

// The API's own paths, per upstream API: [method, path, where the model is]. Everything
// else is 404. The lists are the calls the CLIs make (docs/broker.md says which).
const ROUTES = {
    anthropic: [
        ['POST', /^\/v1\/messages$/, 'body'],
        ['POST', /^\/v1\/messages\/count_tokens$/, 'body'],
        ['GET', /^\/v1\/models$/, null],
        ['GET', /^\/v1\/models\/[A-Za-z0-9._:@-]{1,128}$/, null],
    ],
    // With or without /v1: codex and the OpenAI SDKs append /responses, /chat/completions
    // to the base URL as given, and `--managed URL` keeps a URL without /v1 as it is (a
    // server that serves the API at its root, as LiteLLM does). The path goes on unchanged.
    openai: [
        ['POST', /^(\/v1)?\/chat\/completions$/, 'body'],
        ['POST', /^(\/v1)?\/responses$/, 'body'],
        ['GET', /^(\/v1)?\/models$/, null],
        ['GET', /^(\/v1)?\/models\/[A-Za-z0-9._:@-]{1,128}$/, null],
    ],
    gemini: [
        ['POST', /^\/v1beta\/models\/([A-Za-z0-9._-]{1,128}):(generateContent|streamGenerateContent|countTokens)$/, 'path'],
        ['GET', /^\/v1beta\/models$/, null],
        ['GET', /^\/v1beta\/models\/[A-Za-z0-9._-]{1,128}$/, null],
    ],
};

// The API's own error shapes.
const KINDS = {
    400: ['invalid_request_error', 'INVALID_ARGUMENT'],
    401: ['authentication_error', 'UNAUTHENTICATED'],
    404: ['not_found_error', 'NOT_FOUND'],
    405: ['not_found_error', 'NOT_FOUND'],
    413: ['request_too_large', 'INVALID_ARGUMENT'],
    500: ['api_error', 'INTERNAL'],
    502: ['api_error', 'UNAVAILABLE'],
    503: ['overloaded_error', 'UNAVAILABLE'],
    504: ['api_error', 'DEADLINE_EXCEEDED'],
};

function refuse(r, status, message) {
    const kind = KINDS[status] || (status < 500 ? KINDS[400] : KINDS[500]);
    const api = r.variables.broker_api;
    let body;
    if (api === 'openai') {
        body = { error: { message: message, type: kind[0], param: null, code: null } };
    } else if (api === 'gemini') {
        body = { error: { code: status, message: message, status: kind[1] } };
    } else {
        body = { type: 'error', error: { type: kind[0], message: message } };
    }
    r.headersOut['Content-Type'] = 'application/json';
    r.return(status, JSON.stringify(body) + '\n');
}

// The run's token, from whichever header the CLI sends it in.
function presentedToken(r) {
    const h = r.headersIn;
    if (h['x-api-key']) {
        return h['x-api-key'];
    }
    if (h['x-goog-api-key']) {
        return h['x-goog-api-key'];
    }
    const auth = h['Authorization'];
    if (auth && auth.length > 7 && auth.slice(0, 7).toLowerCase() === 'bearer ') {
        return auth.slice(7).trim();
    }
    return '';
}

// true when the token's file exists: revoking a token is deleting its file.
function tokenValid(r, token) {
    if (token === '') {
        return false;
    }
    if (!TOKEN_RE.test(token)) {
        r.variables.broker_token_id = 'invalid';
        return false;
    }
    const hash = crypto.createHash('sha256').update(token).digest('hex');
    try {
        fs.accessSync(TOKENS_DIR + hash);
    } catch (e) {
        r.variables.broker_token_id = 'unknown:' + hash.slice(0, 8);
        return false;
    }
    r.variables.broker_token_id = hash.slice(0, 12);
    return true;
}

function route(r) {
    const routes = ROUTES[r.variables.broker_api] || [];
    for (let i = 0; i < routes.length; i++) {
        const m = routes[i][1].exec(r.uri);
        if (m && routes[i][0] === r.method) {
            return { model: routes[i][2], match: m };
        }
    }
    return null;
}

// The query, less any `key` parameter (Gemini's other place for a key).
function forwardedArgs(r) {
    const args = r.variables.args;
    if (!args) {
        return '';
    }
    const kept = args.split('&').filter(function (p) {
        return p !== '' && p !== 'key' && p.slice(0, 4) !== 'key=';
    });
    return kept.length ? '?' + kept.join('&') : '';
}

// The endpoint's key, read on every request (a new key needs no reload); '' for an endpoint
// without one. A key with a control character would split the header: refused.
function readKey() {
    let key;
    try {
        key = fs.readFileSync(KEY_FILE, 'utf8');
    } catch (e) {
        return '';
    }
    key = key.replace(/[\r\n]+$/, '');
    if (/[\x00-\x1f\x7f]/.test(key)) {
        return null;
    }
    return key;
}

function setKey(r, key) {
    if (key === '') {
        return;
    }
    const form = r.variables.broker_key_header;
    if (form === 'bearer') {
        r.variables.broker_auth = 'Bearer ' + key;
    } else if (form === 'x-goog-api-key') {
        r.variables.broker_goog_key = key;
    } else {
        r.variables.broker_x_api_key = key;
    }
}

function handle(r) {
    if (!tokenValid(r, presentedToken(r))) {
        refuse(r, 401, 'missing, unknown or revoked token');
        return;
    }
    const found = route(r);
    if (!found) {
        refuse(r, 404, 'not found');
        return;
    }
    const models = r.variables.broker_models ? r.variables.broker_models.split(',') : [];
    const rewrite = r.variables.broker_model_policy === 'rewrite';
    let path = r.uri;
    let target = '@upstream';
    if (found.model === 'path' && models.length && models.indexOf(found.match[1]) < 0) {
        if (!rewrite) {
            refuse(r, 400, 'model not served here: use ' + models[0]);
            return;
        }
        path = '/v1beta/models/' + models[0] + ':' + found.match[2];
    } else if (found.model === 'body' && models.length) {
        const text = r.requestText;
        if (typeof text !== 'string') {
            refuse(r, 413, 'request body too large');
            return;
        }
        let body;
        try {
            body = JSON.parse(text);
        } catch (e) {
            refuse(r, 400, 'the request body is not JSON');
            return;
        }
        if (body === null || typeof body !== 'object' || Array.isArray(body)) {
            refuse(r, 400, 'the request body is not a JSON object');
            return;
        }
        if (models.indexOf(body.model) < 0) {
            if (!rewrite) {
                refuse(r, 400, 'model not served here: use ' + models[0]);
                return;
            }
            body.model = models[0];
            r.variables.broker_body = JSON.stringify(body);
            target = '@upstream_rewritten';
        }
    }
    const key = readKey();
    if (key === null) {
        refuse(r, 500, 'the broker has no usable key');
        return;
    }
    setKey(r, key);
    r.variables.broker_uri = r.variables.broker_prefix + path + forwardedArgs(r);
    r.internalRedirect(target);
}

// nginx's own errors (an upstream that does not answer or fails TLS, a body too large, a
// malformed request): the API's shape instead of nginx's page.
function error(r) {
    const status = Number(r.variables.status) || 500;
    const messages = {
        400: 'bad request', 405: 'not found', 408: 'request timeout', 411: 'length required',
        413: 'request body too large', 414: 'request line too long', 494: 'request headers too large',
        501: 'not implemented', 502: 'the upstream did not answer or failed its TLS check',
        503: 'unavailable', 504: 'the upstream timed out',
    };
    refuse(r, status === 494 ? 400 : status, messages[status] || 'broker error');
}

export default { handle, error };
