/** Contract: file names whose whole content is secret (.env, key files, credential stores); templates and `*.pub` are not. */

const ENV_TEMPLATE_RE = /^\.env\.(?:example|sample|template|dist|defaults?|schema)$/;
const SECRET_EXT_RE = /\.(?:pem|key|p12|pfx|p8|jks|keystore|ppk|kdbx|keytab)$/;
const SECRET_NAMES = new Set([
  '.env',
  '.envrc',
  '.npmrc',
  '.netrc',
  '_netrc',
  '.pgpass',
  '.pypirc',
  '.git-credentials',
  '.dockercfg',
  '.htpasswd',
  '.vault-token',
  '.secrets',
  'credentials',
]);

/** True when a file's whole content is secret (.env, key files, SSH private keys, credential stores). */
export function isSecretFilePath(path: string): boolean {
  const norm = path.replace(/\\/g, '/').replace(/\/+$/, '');
  const base = (norm.slice(norm.lastIndexOf('/') + 1) || '').toLowerCase();
  if (base === '' || base.endsWith('.pub')) return false;
  if (SECRET_NAMES.has(base)) return true;
  if (base.startsWith('.env.')) return !ENV_TEMPLATE_RE.test(base);
  if (base.endsWith('.env')) return true;
  if (SECRET_EXT_RE.test(base)) return true;
  if (/^id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:[._-][a-z0-9._-]*)?$/.test(base)) return true;
  if (/^credentials\.[a-z]+$/.test(base)) return true;
  if (/^secrets?\.(?:ya?ml|json|toml|ini|env|txt)$/.test(base)) return true;
  if (/^client_secret[^/]*\.json$/.test(base) || /^service[-_]?account[^/]*\.json$/.test(base)) return true;
  if (/^tokens?\.json$/.test(base)) return true;
  return /(?:^|\/)\.docker\/config\.json$/i.test(norm) || /(?:^|\/)\.kube\/config$/i.test(norm);
}
