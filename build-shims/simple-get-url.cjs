// simple-get (isomorphic-git's node HTTP client, used by sync) needs one thing of node:url: `parse(url)`'s hostname,
// port, protocol, auth and path. Node's url.parse prints a DEP0169 deprecation warning on Node 24 at every call, on
// the stderr of every sync; this stand-in gives the same fields from the WHATWG URL parser. A string that is no
// absolute URL (a relative redirect) comes back as a path alone, as url.parse gives it.
const real = require('node:url');

function parse(text) {
  let u;
  try {
    u = new URL(text);
  } catch {
    return { hostname: null, port: null, protocol: null, auth: null, path: text };
  }
  const user = u.username || u.password ? `${decodeURIComponent(u.username)}${u.password ? `:${decodeURIComponent(u.password)}` : ''}` : null;
  return {
    hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: u.port || null,
    protocol: u.protocol,
    auth: user,
    path: `${u.pathname}${u.search}`,
  };
}

module.exports = { ...real, parse };
