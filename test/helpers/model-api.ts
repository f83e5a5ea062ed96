/**
 * A stand-in for the Anthropic Messages API, for running the real Claude Code CLI offline: a Node `http` server
 * on 127.0.0.1 (port 0) that answers `POST /v1/messages` (with or without `?beta=true`) with a scripted reply as
 * server-sent events (or one JSON message when the request does not ask for a stream), `{}` for every other path
 * (count_tokens and the like), and logs every request body it gets.
 *
 * A request with `tools` is the main conversation: its reply comes from the script (a function of the request,
 * or a queue of replies, one per main request; an empty queue answers "Done."). A request without `tools` is a
 * side call (titles, summaries, a judge child run with `--tools ""`): it gets `sideReply` (default a short text)
 * unless the script is a function, which decides it too.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request the server got. */
export interface ModelRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  query: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body as received. */
  raw: string;
  /** The parsed JSON body (undefined when it is not JSON). */
  body: any;
  /** A messages request with tools: the main conversation. */
  main: boolean;
  /** A messages request (main or side). */
  messages: boolean;
}

/** A reply block: text, or a tool call (its id is made up when not given). */
export type ReplyBlock = { type: 'text'; text: string } | { type: 'tool_use'; name: string; input: unknown; id?: string };

/** What the model answers: text, a tool call, or several blocks. */
export type Reply = string | { text: string } | { tool: string; input: unknown; id?: string } | { blocks: ReplyBlock[] };

export type Script = (req: ModelRequest, api: ModelApi) => Reply | Promise<Reply>;

export interface ModelApi {
  /** http://127.0.0.1:PORT (for ANTHROPIC_BASE_URL) */
  url: string;
  /** Every request, in order of arrival. */
  readonly requests: ModelRequest[];
  /** The main-conversation requests (with tools), in order. */
  mainRequests(): ModelRequest[];
  /** The messages requests without tools (side calls), in order. */
  sideRequests(): ModelRequest[];
  /** Replaces the script (a function, or a list of replies for the next main requests). */
  script(s: Script | Reply[]): void;
  /** Appends replies for the next main requests (when the script is a queue). */
  queue(...replies: Reply[]): void;
  /** What side calls get when the script is a queue. */
  sideReply: Reply;
  /** Forgets the logged requests. */
  reset(): void;
  stop(): Promise<void>;
}

let toolSeq = 0;

function blocksOf(reply: Reply): ReplyBlock[] {
  if (typeof reply === 'string') return [{ type: 'text', text: reply }];
  if ('blocks' in reply) return reply.blocks;
  if ('tool' in reply) return [{ type: 'tool_use', name: reply.tool, input: reply.input, id: reply.id }];
  return [{ type: 'text', text: reply.text }];
}

function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The events of one streamed message. */
export function messageEvents(blocks: ReplyBlock[], model = 'claude-stand-in', inputTokens = 10): string {
  const id = `msg_standin_${Date.now().toString(36)}_${(++toolSeq).toString(36)}`;
  let out = sse('message_start', {
    type: 'message_start',
    message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } },
  });
  let outputTokens = 1;
  blocks.forEach((b, index) => {
    if (b.type === 'text') {
      out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: b.text } });
      outputTokens += Math.ceil(b.text.length / 4);
    } else {
      const toolId = b.id ?? `toolu_standin_${(++toolSeq).toString(36).padStart(6, '0')}`;
      out += sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: toolId, name: b.name, input: {} } });
      const json = JSON.stringify(b.input ?? {});
      // Sent in two pieces, as the real API streams partial JSON.
      const cut = Math.floor(json.length / 2);
      out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, cut) } });
      out += sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(cut) } });
      outputTokens += Math.ceil(json.length / 4);
    }
    out += sse('content_block_stop', { type: 'content_block_stop', index });
  });
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  out += sse('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: outputTokens } });
  out += sse('message_stop', { type: 'message_stop' });
  return out;
}

/** One non-streamed message. */
function messageJson(blocks: ReplyBlock[], model = 'claude-stand-in'): unknown {
  return {
    id: `msg_standin_${(++toolSeq).toString(36)}`,
    type: 'message',
    role: 'assistant',
    model,
    content: blocks.map((b) => (b.type === 'text' ? b : { type: 'tool_use', id: b.id ?? `toolu_standin_${(++toolSeq).toString(36)}`, name: b.name, input: b.input })),
    stop_reason: blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 10 },
  };
}

export async function startModelApi(initial: Script | Reply[] = []): Promise<ModelApi> {
  const requests: ModelRequest[] = [];
  const sockets = new Set<Socket>();
  let fn: Script | undefined;
  let queue: Reply[] = [];
  const set = (s: Script | Reply[]): void => {
    if (typeof s === 'function') {
      fn = s;
      queue = [];
    } else {
      fn = undefined;
      queue = [...s];
    }
  };
  set(initial);

  const api: ModelApi = {
    url: '',
    requests,
    mainRequests: () => requests.filter((r) => r.main),
    sideRequests: () => requests.filter((r) => r.messages && !r.main),
    script: set,
    queue: (...replies) => {
      fn = undefined;
      queue.push(...replies);
    },
    sideReply: 'OK.',
    reset: () => {
      requests.length = 0;
    },
    stop: async () => undefined,
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: any;
        try {
          body = raw ? JSON.parse(raw) : undefined;
        } catch {
          body = undefined;
        }
        const url = new URL(req.url ?? '/', 'http://127.0.0.1');
        const messages = req.method === 'POST' && url.pathname === '/v1/messages';
        const main = messages && Array.isArray(body?.tools) && body.tools.length > 0;
        const record: ModelRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.search.replace(/^\?/, ''), headers: req.headers, raw, body, main, messages };
        requests.push(record);
        if (!messages) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{}');
          return;
        }
        let reply: Reply;
        try {
          if (fn) reply = await fn(record, api);
          else if (main) reply = queue.shift() ?? 'Done.';
          else reply = api.sideReply;
        } catch (err) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: `stand-in script failed: ${(err as Error).message}` } }));
          return;
        }
        const blocks = blocksOf(reply);
        const model = typeof body?.model === 'string' ? body.model : undefined;
        if (body?.stream === false || body?.stream === undefined) {
          res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_standin_${requests.length}` });
          res.end(JSON.stringify(messageJson(blocks, model)));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_standin_${requests.length}` });
        res.end(messageEvents(blocks, model, Math.ceil(raw.length / 4)));
      })();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  api.url = `http://127.0.0.1:${port}`;
  let stopped: Promise<void> | undefined;
  api.stop = () => {
    stopped ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
      for (const s of sockets) s.destroy();
    });
    return stopped;
  };
  return api;
}

// ---- reading what the CLI sent ----

/** Every text the model was shown in a request's messages (strings, text blocks, tool results), in order. */
export function textsOf(req: ModelRequest): string[] {
  const out: string[] = [];
  const walk = (content: unknown): void => {
    if (typeof content === 'string') out.push(content);
    else if (Array.isArray(content)) for (const b of content) walk(b);
    else if (content && typeof content === 'object') {
      const b = content as Record<string, unknown>;
      if (b.type === 'text' && typeof b.text === 'string') out.push(b.text);
      else if (b.type === 'tool_result') walk(b.content);
    }
  };
  for (const m of (req.body?.messages ?? []) as Array<{ content: unknown }>) walk(m.content);
  return out;
}

/** The texts of a request that carry a UserPromptSubmit hook's context. */
export function hookContexts(req: ModelRequest): string[] {
  return textsOf(req).filter((t) => t.includes('UserPromptSubmit hook additional context:'));
}

/** The tool_result blocks of a request's last user message. */
export function lastToolResults(req: ModelRequest): Array<{ tool_use_id: string; is_error?: boolean; text: string }> {
  const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const last = [...msgs].reverse().find((m) => m.role === 'user');
  if (!last || !Array.isArray(last.content)) return [];
  return (last.content as Array<Record<string, unknown>>)
    .filter((b) => b.type === 'tool_result')
    .map((b) => {
      const parts: string[] = [];
      const c = b.content;
      if (typeof c === 'string') parts.push(c);
      else if (Array.isArray(c)) for (const x of c as Array<Record<string, unknown>>) if (typeof x.text === 'string') parts.push(x.text);
      return { tool_use_id: String(b.tool_use_id), is_error: b.is_error as boolean | undefined, text: parts.join('\n') };
    });
}

/** The system prompt of a request as one string. */
export function systemText(req: ModelRequest): string {
  const s = req.body?.system;
  if (typeof s === 'string') return s;
  if (Array.isArray(s)) return s.map((b: { text?: string }) => b.text ?? '').join('\n');
  return '';
}
