/**
 * A private key block in base64 (`LS0tLS1CRUdJTi` is `-----BEGIN `), as kubeconfig's `client-key-data:` and
 * Kubernetes secrets hold it: reported when it decodes to a private key header.
 */
import { fill, type TokenRule } from './rule.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const decodesToPrivateKey = (s: string): boolean => /^-----BEGIN (?:[A-Z0-9]{1,20} ){0,3}PRIVATE KEY/.test(Buffer.from(s.slice(0, 120), 'base64').toString('latin1'));

export const kubernetesRules: TokenRule[] = [
  {
    kind: 'private key block (base64)',
    re: /(?<![A-Za-z0-9+\/])LS0tLS1CRUdJTi[A-Za-z0-9+\/]{40,16384}={0,2}(?![A-Za-z0-9+\/=])/g,
    keywords: ['ls0tls1crudjti'],
    check: decodesToPrivateKey,
    samples: [b64(`${'-----BEGIN '}RSA PRIVATE ${'KEY-----'}\n${fill(64)}\n${fill(40)}\n`)],
    context: (s) => `users:\n- name: admin\n  user:\n    client-certificate-data: LS0tCg==\n    client-key-data: ${s}\n`,
    nearMisses: [`client-certificate-data: ${b64(`${'-----BEGIN '}CERTIFICATE-----\n${fill(64)}\n${fill(40)}\n`)}`],
  },
];
