// Preloaded into the conformance suite (node --import): the suite sends no
// token of its own, so every request it makes to the server under test
// gets `Authorization: Bearer $EVOLV_MCP_TOKEN`: fetch, undici and the
// SDK's transport through undici's global dispatcher, the raw probes
// through node:http's request. Requests that already carry an
// Authorization header keep theirs.
import http from 'node:http';
import { Agent, setGlobalDispatcher } from 'undici';

const token = process.env.EVOLV_MCP_TOKEN;
const origin = process.env.EVOLV_MCP_ORIGIN; // e.g. http://127.0.0.1:8765
if (!token || !origin) {
  throw new Error('inject-token.mjs needs EVOLV_MCP_TOKEN and EVOLV_MCP_ORIGIN');
}

const hasAuth = (headers) => {
  if (!headers) return false;
  if (Array.isArray(headers)) {
    for (let i = 0; i < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === 'authorization') return true;
    }
    return false;
  }
  if (typeof headers.has === 'function') return headers.has('authorization');
  return Object.keys(headers).some((k) => k.toLowerCase() === 'authorization');
};

const withToken = (dispatch) => (opts, handler) => {
  if (String(opts.origin).replace(/\/$/, '') === origin && !hasAuth(opts.headers)) {
    const auth = `Bearer ${token}`;
    if (Array.isArray(opts.headers)) {
      opts = { ...opts, headers: [...opts.headers, 'authorization', auth] };
    } else {
      opts = { ...opts, headers: { ...(opts.headers ?? {}), authorization: auth } };
    }
  }
  return dispatch(opts, handler);
};

setGlobalDispatcher(new Agent().compose(withToken));

// node:http, as the suite's header and DNS-rebinding probes use it.
const target = new URL(origin);
const request = http.request;
http.request = function (...args) {
  const at = typeof args[0] === 'string' || args[0] instanceof URL ? 1 : 0;
  const opts = at === 1 && typeof args[1] === 'object' && args[1] !== null ? args[1] : args[0];
  if (typeof opts === 'object' && opts !== null && !(opts instanceof URL)) {
    const port = String(opts.port ?? '');
    const host = opts.hostname ?? opts.host;
    if (port === target.port && host === target.hostname && !hasAuth(opts.headers)) {
      opts.headers = { ...(opts.headers ?? {}), authorization: `Bearer ${token}` };
    }
  }
  return request.apply(this, args);
};
