// A smart-HTTP git server for the sync benchmark: `git http-backend` behind node:http on 127.0.0.1, serving the
// bare repos under ROOT. It runs as its own process (the benchmark times commands with spawnSync, which would
// freeze a server living in the same process). Prints its URL on stdout, then serves until killed.
//   node bench/sync-server.mjs ROOT
// The test suite has the fuller version (test/helpers/git-server.ts: Basic auth, request counting).
import { spawn } from 'node:child_process';
import http from 'node:http';

const root = process.argv[2];
if (!root) throw new Error('usage: node bench/sync-server.mjs ROOT');

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('GIT_')) env[k] = v;
  Object.assign(env, {
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    GIT_HTTP_MAX_REQUEST_BUFFER: '1000M',
    GIT_CONFIG_NOSYSTEM: '1',
    GATEWAY_INTERFACE: 'CGI/1.1',
    REQUEST_METHOD: req.method ?? 'GET',
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ''),
    REMOTE_ADDR: '127.0.0.1',
    REMOTE_USER: 'bench',
  });
  if (req.headers['content-type']) env.CONTENT_TYPE = req.headers['content-type'];
  if (req.headers['content-length']) env.CONTENT_LENGTH = req.headers['content-length'];
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || ['authorization', 'content-type', 'content-length'].includes(name)) continue;
    env[`HTTP_${name.toUpperCase().replace(/-/g, '_')}`] = Array.isArray(value) ? value.join(', ') : value;
  }
  const child = spawn('git', ['http-backend'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdin.on('error', () => {});
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let sent = false;
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const crlf = head.indexOf('\r\n\r\n');
    const lf = head.indexOf('\n\n');
    if (crlf === -1 && lf === -1) return;
    const useCrlf = crlf !== -1 && (lf === -1 || crlf < lf);
    const end = useCrlf ? crlf : lf;
    sent = true;
    child.stdout.off('data', onData);
    let status = 200;
    const headers = {};
    for (const line of head.subarray(0, end).toString().split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const k = line.slice(0, i).trim();
      const v = line.slice(i + 1).trim();
      if (k.toLowerCase() === 'status') status = Number(v.slice(0, 3));
      else headers[k] = v;
    }
    res.writeHead(status, headers);
    res.write(head.subarray(end + (useCrlf ? 4 : 2)));
    child.stdout.pipe(res);
  };
  child.stdout.on('data', onData);
  child.on('close', () => {
    if (!sent) {
      res.writeHead(500);
      res.end();
    }
  });
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
