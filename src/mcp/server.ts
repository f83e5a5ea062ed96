/**
 * Contract: `git-kb mcp`, the knowledge base over the Model Context Protocol (spec/mcp.md). Tools named as the
 * verbs, with the CLI's argument names, call the same use cases (src/app), so validation, secret refusal, the
 * write lock and commits are the CLI's own; a failure comes back as a tool error whose text is the CLI's
 * `{"error":{"code","message"}}`. Entries are resources `kb://entry/<id>`. Every call reads through the
 * never-stale caches, so an entry written by the CLI, a hook, plain git or a pull is seen by the next call.
 * Loaded only by the `mcp` verb: nothing here is on the prompt hook's path.
 */
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Transform } from 'node:stream';
import { z } from 'zod';
import type { Settings } from '../adapters/config/settings.js';
import type { DataSource } from '../adapters/config/config.js';
import { isKbError, KbError, systemRefusal } from '../core/errors.js';
import { ACTIVITIES, idArgument, RELS, TYPES } from '../core/format/schema.js';

/** What the server needs from its container. */
export interface McpOptions {
  /** The data repo, resolved once by the container (as the CLI resolves it). */
  data: string;
  /** Where that choice came from (the `--data` flag, GIT_KB_DATA, the config file, the default), as `status` says it. */
  source?: DataSource;
  /** The environment, parsed once by the container. */
  settings: Settings;
  version: string;
}

type ToolResult = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

/** A tool result holding `value` as JSON text and as structured content. */
function ok(value: Record<string, unknown>): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }], structuredContent: value };
}

/** A tool error carrying the CLI's error JSON. */
function fail(err: unknown): ToolResult {
  const kb = err instanceof KbError ? err : systemRefusal(err);
  const e = kb ? { code: kb.code, message: kb.message } : { code: 'INTERNAL', message: String((err as Error)?.message ?? err) };
  return { content: [{ type: 'text', text: JSON.stringify({ error: e }) }], isError: true };
}

/**
 * MCP's code for a resource that does not exist (spec 2025-11-25, "Resources: Error Handling"; the SDK has no name
 * for it). NOTE: SEP-2164 moves it to -32602 in a later protocol revision; the SDK negotiates 2025-11-25 at most.
 */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * A failed resource read as the JSON-RPC error a client can act on, with the CLI's message and code and the URI
 * (spec/mcp.md, "Resources and prompts"): no such entry, or no data repo at all, is not-found; a URI whose id is
 * no entry id is invalid params; anything else keeps the CLI's message.
 */
function resourceError(err: unknown, uri: string): McpError {
  const kb = err instanceof KbError ? err : systemRefusal(err);
  if (!kb) return new McpError(ErrorCode.InternalError, String((err as Error)?.message ?? err), { uri, code: 'INTERNAL' });
  const code = kb.code === 'NOT_FOUND' || kb.code === 'NO_DATA_REPO' ? RESOURCE_NOT_FOUND : kb.code === 'USAGE' || kb.code === 'INVALID_ENTRY' ? ErrorCode.InvalidParams : ErrorCode.InternalError;
  return new McpError(code, kb.message, { uri, code: kb.code });
}

/**
 * `message` with an error's text as the client is to see it. NOTE: the SDK's McpError puts `MCP error <code>: ` in
 * its message and its protocol layer sends that message as is; the client's McpError adds the prefix again
 * (`MCP error -32602: MCP error -32602: ...`). The wire carries the text alone, as JSON-RPC means it.
 */
export function plainErrorText(message: JSONRPCMessage): JSONRPCMessage {
  if (!('error' in message) || !message.error || typeof message.error.message !== 'string') return message;
  const text = message.error.message.replace(/^MCP error -?\d+: /, '');
  return text === message.error.message ? message : { ...message, error: { ...message.error, message: text } };
}

/** Typed links as the CLI's `rel:id` flags. */
function linkFlags(links: { rel: string; to: string }[] | undefined): string[] | undefined {
  return links?.map((l) => `${l.rel}:${l.to}`);
}

/** Runs a use case and turns its outcome into a tool result. */
async function run(fn: () => Promise<Record<string, unknown>>): Promise<ToolResult> {
  try {
    return ok(await fn());
  } catch (err) {
    return fail(err);
  }
}

// NOTE: closed sets are plain strings named in the description, not enums: the use case then refuses a bad value
// with the CLI's own error code (INVALID_ENTRY, USAGE), where a schema enum would answer with the SDK's message.
const type = z.string().describe(`entry type, one of: ${TYPES.join(', ')}`);
const link = z.object({ rel: z.string().describe(`one of: ${RELS.join(', ')}`), to: z.string().describe('the target entry id, e.g. kb-3lvn09zbq0') });
const activity = z.string().describe(`one of: ${ACTIVITIES.join(', ')}`);
const since = z.string().describe('only entries updated on or after this date (YYYY-MM-DD)');
const hit = z.object({ id: z.string(), title: z.string(), type: z.string(), path: z.string() }).passthrough();
const turnHit = z.object({ id: z.string(), session_id: z.string(), title: z.string(), turn: z.number(), anchor: z.string(), kind: z.string() }).passthrough();

const patternKey = z.string().describe("the lesson's slug, e.g. pin-node-in-ci (lower case, digits and -)");
const rule = z.object({ pattern: z.string().describe('a regular expression'), message: z.string().describe('what the rule says, shown when the pattern matches'), flags: z.string().optional().describe('regex flags, e.g. i') });

// NOTE: the annotations say what a tool can do at worst. Every write is one git commit (so nothing is beyond
// `git revert`), but a tool that removes or overwrites what an entry said is destructive to the knowledge base.
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
/** Adds, never replaces: a second call adds again. */
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;
/** Removes or overwrites; the same call again changes nothing more. */
const DESTROY = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false } as const;

/** Builds the server with every tool, the entry resources and the prompts. */
export function createServer(options: McpOptions): McpServer {
  const repo = { data: options.data, settings: options.settings };

  const server = new McpServer({ name: 'git-kb', version: options.version }, { instructions: 'A personal knowledge base of markdown notes in git. Search it before working something out again; `get` the entries a search points to; `add` durable lessons, decisions, conventions, references and bookmarks.' });

  server.registerTool(
    'search',
    {
      title: 'Search the knowledge base',
      description:
        'Ranked lexical search over titles, tags, aliases and bodies, and over past sessions turn by turn (prompts, replies, recaps, tool output). It finds words, not meanings: pass the user\'s words plus synonyms and related terms as several queries (an array); they are merged. Returns pointers (id, title, type, tags, snippet), never whole bodies: call `get` for the entries worth reading, `session_show` with `turn` for a session turn.',
      inputSchema: {
        query: z.union([z.string(), z.array(z.string()).min(1)]).describe('one query, or several phrasings of the same question'),
        type: type.optional(),
        tag: z.string().optional(),
        host: z.string().optional().describe('only facts about this host key'),
        since: since.optional(),
        limit: z.number().int().positive().max(100).optional().describe('at most this many results (default 10)'),
        tool_output: z.boolean().optional().describe('show the tool output a session turn matched in (it is searched either way)'),
      },
      outputSchema: { query: z.string(), queries: z.array(z.string()), results: z.array(hit), sessions: z.array(turnHit) },
      annotations: { title: 'Search', ...READ },
    },
    (a) =>
      run(async () => {
        const { searchEntries } = await import('../app/search.js');
        const r = await searchEntries({ ...repo, queries: Array.isArray(a.query) ? a.query : [a.query], type: a.type, tag: a.tag, host: a.host, since: a.since, limit: a.limit, toolOutput: a.tool_output });
        return { query: r.query, queries: r.queries, results: r.results, sessions: r.sessions };
      }),
  );

  server.registerTool(
    'get',
    {
      title: 'Read entries',
      description: 'The full text (front matter and body) of entries by id, e.g. the ids a search or the prompt hook pointed to. With links: true, also the ids and titles of their 1-hop linked neighbours.',
      inputSchema: { ids: z.array(z.string()).min(1).describe('entry ids such as kb-3lvn09zbq0'), links: z.boolean().optional() },
      outputSchema: { entries: z.array(z.object({ id: z.string(), path: z.string(), text: z.string() }).passthrough()) },
      annotations: { title: 'Get', ...READ },
    },
    (a) =>
      run(async () => {
        const { getEntries } = await import('../app/get.js');
        return { entries: await getEntries({ ...repo, ids: a.ids.map(idArgument), links: a.links }) };
      }),
  );

  server.registerTool(
    'list',
    {
      title: 'List entries',
      description: 'Entries newest first (id, title, type, tags, dates), filtered by type, tag, host or date. An entry whose front matter type git-kb does not know (a hand edit\'s "lesson") is served and filtered as factual_reference and carries type_written, its type as written; type_unknown lists every such entry, whatever the filters.',
      inputSchema: { type: type.optional(), tag: z.string().optional(), host: z.string().optional(), since: since.optional(), limit: z.number().int().positive().max(1000).optional().describe('default 50') },
      outputSchema: { entries: z.array(hit), type_unknown: z.array(z.object({ id: z.string(), path: z.string(), type_written: z.string() })).optional() },
      annotations: { title: 'List', ...READ },
    },
    (a) =>
      run(async () => {
        const { listEntries } = await import('../app/list.js');
        const r = await listEntries({ ...repo, type: a.type, tag: a.tag, host: a.host, since: a.since, limit: a.limit ?? 50 });
        return { entries: r.entries, ...(r.unknownTypes.length ? { type_unknown: r.unknownTypes } : {}) };
      }),
  );

  server.registerTool(
    'add',
    {
      title: 'Add an entry',
      description:
        'Adds one entry and commits it. Search first: do not add what is already there (edit it instead). Keep it to one durable idea, titled as a statement a later reader would search for. Secrets are refused; links must name existing ids; a bookmark needs a url; a host_fact needs a host. A lesson with a pattern_key that an entry already has creates nothing new: the sighting is recorded on that entry (recurred: true, count: times seen); at the repo\'s promote_after sightings it becomes a promotion candidate (status lists them).',
      inputSchema: {
        type,
        title: z.string().min(1),
        body: z.string().describe('markdown, not blank (only a bookmark may leave it empty: its url is its content); [[id]] links to another entry'),
        tags: z.array(z.string()).optional(),
        links: z.array(link).optional(),
        url: z.string().optional(),
        applies_to: z.array(activity).optional().describe('activities whose prompts should be pointed to this entry'),
        kernel: z.boolean().optional().describe('inject the whole body on every prompt (short house rules only)'),
        host: z.string().optional(),
        aliases: z.array(z.string()).optional(),
        pattern_key: patternKey.optional(),
        rules: z.array(rule).optional().describe('prose rules of a kernel entry: the prose gate denies text that matches a pattern'),
      },
      outputSchema: { id: z.string(), path: z.string(), commit: z.string(), recurred: z.boolean().optional(), count: z.number().optional(), created: z.string().optional().describe('the data repo this add created (there was none): tell the user') },
      annotations: { title: 'Add', ...WRITE },
    },
    (a) =>
      run(async () => {
        const { addEntry } = await import('../app/add.js');
        const r = await addEntry({
          ...repo,
          type: a.type,
          title: a.title,
          body: a.body,
          tags: a.tags,
          links: linkFlags(a.links),
          url: a.url,
          appliesTo: a.applies_to,
          kernel: a.kernel,
          host: a.host,
          aliases: a.aliases,
          patternKey: a.pattern_key,
          rules: a.rules,
        });
        // The first write with no data repo creates one (as the CLI's first write does, which says so on stderr):
        // the model is told where, so it can tell the user.
        const [created] = (await import('../app/created.js')).takeCreatedRepos();
        return { ...r, ...(created ? { created } : {}) };
      }),
  );

  server.registerTool(
    'edit',
    {
      title: 'Edit an entry',
      description: 'Changes one entry in place and commits it; returns the diff. Give only what changes: body replaces the body, append adds to it. pattern_key names the lesson so that a later add with it records a recurrence here ("" removes it); rules replaces a kernel entry\'s prose rules ([] removes them).',
      inputSchema: {
        id: z.string(),
        title: z.string().optional(),
        tags: z.array(z.string()).optional().describe('replaces the tags'),
        add_tags: z.array(z.string()).optional(),
        remove_tags: z.array(z.string()).optional(),
        links: z.array(link).optional().describe('links to add'),
        unlink: z.array(z.string()).optional().describe('ids whose links are removed'),
        url: z.string().optional(),
        applies_to: z.array(activity).optional(),
        kernel: z.boolean().optional(),
        aliases: z.array(z.string()).optional(),
        pattern_key: z.string().optional().describe('the lesson\'s slug; "" removes it'),
        rules: z.array(rule).optional(),
        body: z.string().optional(),
        append: z.string().optional(),
      },
      outputSchema: { id: z.string(), path: z.string(), commit: z.string().optional(), changed: z.boolean(), diff: z.string(), relinked: z.array(z.string()).optional().describe("on a retitle: the entries linking to it whose Links section now shows the new title (same commit)") },
      // NOTE: not idempotent: `append` adds its paragraph again on every call.
      annotations: { title: 'Edit', ...DESTROY, idempotentHint: false },
    },
    (a) =>
      run(async () => {
        if (a.body !== undefined && a.append !== undefined) throw new KbError('USAGE', 'give body or append, not both');
        const { editEntry } = await import('../app/edit.js');
        const r = await editEntry({
          ...repo,
          id: idArgument(a.id),
          title: a.title,
          tags: a.tags,
          addTags: a.add_tags,
          removeTags: a.remove_tags,
          links: linkFlags(a.links),
          unlink: a.unlink,
          url: a.url,
          appliesTo: a.applies_to,
          kernel: a.kernel,
          aliases: a.aliases,
          patternKey: a.pattern_key,
          rules: a.rules,
          body: a.body,
          append: a.append,
        });
        return { ...r };
      }),
  );

  server.registerTool(
    'promote',
    {
      title: 'Promote an entry to the kernel',
      description:
        'Makes an entry kernel (kernel: true): its whole body is then shown on every prompt. For a lesson seen again and again (status lists promotion_candidates). Refused with CONFLICT, nothing written, when the kernel would go over its budget; the message names what to compact first. Promoting a kernel entry changes nothing.',
      inputSchema: { id: z.string() },
      outputSchema: { id: z.string(), path: z.string(), commit: z.string().optional(), changed: z.boolean(), kernel_chars: z.number(), budget: z.number() },
      annotations: { title: 'Promote', readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    (a) =>
      run(async () => {
        const { promoteEntry } = await import('../app/promote.js');
        return { ...(await promoteEntry({ ...repo, id: idArgument(a.id) })) };
      }),
  );

  server.registerTool(
    'prune',
    {
      title: 'Prune stale and duplicate entries',
      description:
        'Lists the entries prune would delete: stale ones (a decaying type, several half-lives old, never seen again, nothing links to it) and duplicates (same body and type, or one pattern key), each with its reason. A dry run unless delete: true, which deletes exactly the listed entries in one commit; of a duplicate group the newest copy is kept, and the others are folded into its recurrence history (folded). Show the list to the user before deleting.',
      inputSchema: {
        delete: z.boolean().optional().describe('delete the candidates (default false: only list them)'),
        half_lives: z.number().positive().optional().describe('stale from this many half-lives (default 4)'),
      },
      outputSchema: { candidates: z.array(z.object({ id: z.string(), title: z.string(), type: z.string(), path: z.string(), reason: z.string(), detail: z.string() }).passthrough()), deleted: z.array(z.string()), commit: z.string().optional(), folded: z.array(z.string()).optional(), half_lives: z.number() },
      annotations: { title: 'Prune', ...DESTROY },
    },
    (a) =>
      run(async () => {
        const { prune } = await import('../app/prune.js');
        return { ...(await prune({ ...repo, yes: a.delete === true, halfLives: a.half_lives })) };
      }),
  );

  server.registerTool(
    'delete',
    {
      title: 'Delete entries',
      description:
        'Deletes entries by id in one commit. Refused with CONFLICT, nothing written, when other entries link to them (the message lists each link), unless force: true. The entry stays in git history.',
      inputSchema: { ids: z.array(z.string()).min(1), force: z.boolean().optional().describe('delete even when links to them would dangle') },
      outputSchema: { deleted: z.array(z.object({ id: z.string(), path: z.string() })), commit: z.string(), dangling: z.array(z.object({}).passthrough()) },
      annotations: { title: 'Delete', ...DESTROY },
    },
    (a) =>
      run(async () => {
        const { deleteEntries } = await import('../app/delete.js');
        return { ...(await deleteEntries({ ...repo, ids: a.ids.map(idArgument), force: a.force })) };
      }),
  );

  server.registerTool(
    'tags',
    {
      title: 'List tags',
      description: 'Every tag with the number of entries that carry it, most used first: reuse these rather than inventing near-duplicates.',
      inputSchema: {},
      outputSchema: { tags: z.array(z.object({ tag: z.string(), count: z.number() })) },
      annotations: { title: 'Tags', ...READ },
    },
    () =>
      run(async () => {
        const { tagCounts } = await import('../app/tags.js');
        return { tags: (await tagCounts(repo)).tags };
      }),
  );

  server.registerTool(
    'compact_check',
    {
      title: 'Grade a compaction',
      description:
        'Grades a shorter rewrite of an entry, the kernel or a host\'s facts (target: an entry id, "kernel" or "host:KEY") against its text at the baseline revision (the commit before the rewrite): PASS, FLOOR (nothing legal left to cut), DEFECTS (each named, with a repair) or CANNOT_GRADE. Each call is a round recorded in the repo\'s compaction ledger; after the last failed round the target is rolled back to the baseline in a new commit (rolled_back).',
      inputSchema: {
        target: z.string().describe('an entry id, "kernel", or host:KEY'),
        baseline: z.string().describe('the revision holding the text before the rewrite, e.g. HEAD~1 or a commit id'),
        target_chars: z.number().int().positive().optional().describe('the most characters allowed (default 85% of the baseline)'),
        floor_chars: z.number().int().positive().optional().describe('the fewest characters allowed (default 40% of the baseline)'),
      },
      outputSchema: {
        verdict: z.string(),
        target: z.string(),
        baseline_rev: z.string(),
        baseline_chars: z.number(),
        current_chars: z.number(),
        target_chars: z.number(),
        floor_chars: z.number(),
        minimum: z.number(),
        defects: z.array(z.object({ kind: z.string(), message: z.string() }).passthrough()),
        reason: z.string().optional(),
        directive: z.string(),
        round: z.number(),
        failed_rounds: z.number(),
        rolled_back: z.object({}).passthrough().optional(),
      },
      // NOTE: not read-only: each call counts a round, and the last failed one rolls the target back (a commit).
      annotations: { title: 'Compact check', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    (a) =>
      run(async () => {
        const { compactCheck } = await import('../app/compact.js');
        return { ...(await compactCheck({ ...repo, target: a.target, baseline: a.baseline, targetChars: a.target_chars, floorChars: a.floor_chars })) };
      }),
  );

  server.registerTool(
    'status',
    {
      title: 'Knowledge base status',
      description: 'Where the data repo is, entry counts by type, the kernel\'s size against its budget, problems, and the remote and sync state.',
      inputSchema: {},
      annotations: { title: 'Status', ...READ },
    },
    () =>
      run(async () => {
        const { repoStatus } = await import('../app/status.js');
        // NOTE: the tools get the directory resolved at start, which would read as a --data flag: the source is
        // the one that resolution found.
        const status = await repoStatus(repo);
        return { ...status, ...(options.source ? { source: options.source } : {}) };
      }),
  );

  server.registerTool(
    'host_load',
    {
      title: 'Load a host\'s facts',
      description: 'The recorded facts about one host (by key or alias), oldest first, with a status: loaded, empty, unknown or forbidden. A forbidden host is never loaded.',
      inputSchema: { key: z.string() },
      annotations: { title: 'Host facts', ...READ },
    },
    (a) =>
      run(async () => {
        const { loadHostFacts } = await import('../app/host.js');
        return { ...(await loadHostFacts({ ...repo, key: a.key })) };
      }),
  );

  server.registerTool(
    'session_list',
    {
      title: 'List session summaries',
      description: 'Summaries of past coding sessions, most recent first, optionally of one project directory.',
      inputSchema: { cwd: z.string().optional().describe('a project directory, matched exactly'), limit: z.number().int().positive().max(200).optional().describe('default 20') },
      annotations: { title: 'Sessions', ...READ },
    },
    (a) =>
      run(async () => {
        const { listSessions } = await import('../app/session.js');
        return { sessions: await listSessions({ ...repo, cwd: a.cwd, limit: a.limit ?? 20 }) };
      }),
  );

  server.registerTool(
    'session_show',
    {
      title: 'Show a session',
      description:
        'One session by entry id or by session id (a prefix of 8 or more characters): its summary; or, from its archived transcript, `turns: true` for the list of its turns (number, anchor, prompt), `turn` for one turn in full (prompt, replies, tool calls and output), `grep` for the lines that hold a text. Anchors are stable: cite a quote as <id> turn <anchor>.',
      inputSchema: {
        id: z.string(),
        turns: z.boolean().optional().describe('list the turns'),
        turn: z.union([z.number().int().nonnegative(), z.string()]).optional().describe('a turn number or anchor'),
        grep: z.string().optional().describe('a text to find, case-insensitive'),
      },
      annotations: { title: 'Session', ...READ },
    },
    (a) =>
      run(async () => {
        const { showSession } = await import('../app/session.js');
        return { ...(await showSession({ ...repo, id: idArgument(a.id), turns: a.turns, turn: a.turn === undefined ? undefined : String(a.turn), grep: a.grep })) };
      }),
  );

  server.registerResource(
    'entry',
    new ResourceTemplate('kb://entry/{id}', {
      list: async () => {
        const { listEntries } = await import('../app/list.js');
        try {
          const items = (await listEntries({ ...repo, limit: 200 })).entries;
          return { resources: items.map((e) => ({ uri: `kb://entry/${e.id}`, name: e.id, title: e.title, mimeType: 'text/markdown' })) };
        } catch (err) {
          // NOTE: clients list resources when they connect: no data repo yet is no entries, not a broken server
          // (the tools then say how to create one).
          if (isKbError(err, 'NO_DATA_REPO')) return { resources: [] };
          throw resourceError(err, 'kb://entry/');
        }
      },
    }),
    { title: 'Knowledge base entry', description: 'One entry of the knowledge base, verbatim (front matter and markdown body).', mimeType: 'text/markdown' },
    async (uri, vars) => {
      const { getEntries } = await import('../app/get.js');
      const id = String(Array.isArray(vars.id) ? vars.id[0] : vars.id);
      try {
        const [entry] = await getEntries({ ...repo, ids: [id] });
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: entry!.text }] };
      } catch (err) {
        throw resourceError(err, uri.href);
      }
    },
  );

  server.registerPrompt(
    'search-first',
    {
      title: 'Search the knowledge base before answering',
      description: 'Asks the model to look in the knowledge base for what is already known about a question before working it out.',
      argsSchema: { question: z.string() },
    },
    (a) => ({
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: `Before answering, call the git-kb search tool with my words and a few synonyms as several queries, then get the entries that look relevant, and answer from them (say which ids you used). Question: ${a.question}`,
          },
        },
      ],
    }),
  );

  return server;
}

/** The longest message line read: an entry's input limit and room for its JSON (spec/mcp.md). */
export const MAX_MESSAGE_BYTES = 9 * 1024 * 1024;

/**
 * Stdin cut into whole lines of at most `max` bytes. NOTE: the SDK's transport closes the connection when its
 * buffer passes 10 MB (one big message, or a garbage line without an end): a longer line is dropped here instead,
 * and `dropped` answers it (with its id, when the line's start names one), so the server keeps serving.
 */
export function boundedLines(input: NodeJS.ReadableStream, max: number, dropped: (id: string | number | null, bytes: number) => void): Transform {
  let pending: Buffer[] = [];
  let size = 0;
  let dropping: { head: string; bytes: number } | undefined;
  const lines = new Transform({
    transform(chunk: Buffer, _enc, done) {
      let start = 0;
      while (start < chunk.length) {
        const nl = chunk.indexOf(10, start);
        const end = nl === -1 ? chunk.length : nl + 1;
        const part = chunk.subarray(start, end);
        if (dropping) dropping.bytes += part.length;
        else if (size + part.length > max) {
          dropping = { head: Buffer.concat([...pending, part]).subarray(0, 512).toString('utf8'), bytes: size + part.length };
          pending = [];
          size = 0;
        } else {
          pending.push(part);
          size += part.length;
        }
        if (nl !== -1) {
          if (dropping) {
            const m = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")/.exec(dropping.head);
            dropped(m ? (JSON.parse(m[1]!) as string | number) : null, dropping.bytes);
            dropping = undefined;
          } else this.push(Buffer.concat(pending, size));
          pending = [];
          size = 0;
        }
        start = end;
      }
      done();
    },
  });
  input.pipe(lines);
  return lines;
}

/** Serves the knowledge base over stdio until the client closes the connection. */
export async function serveStdio(options: McpOptions): Promise<void> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { keepRepoWarm } = await import('../app/serve.js');
  keepRepoWarm({ data: options.data, settings: options.settings });
  const server = createServer(options);
  const stdin = boundedLines(process.stdin, MAX_MESSAGE_BYTES, (id, bytes) => {
    const message = `message of ${(bytes / 2 ** 20).toFixed(1)} MB dropped: the limit is ${MAX_MESSAGE_BYTES / 2 ** 20} MB (an entry holds at most 8 MB)`;
    process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message } })}\n`);
  });
  const transport = new StdioServerTransport(stdin as unknown as typeof process.stdin);
  const send = transport.send.bind(transport);
  transport.send = (message) => send(plainErrorText(message));
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  await closed;
}
