/** Contract: the kinds of secret the scanner names, and the shape of one candidate span (internal to core/secrets). */

/**
 * The human names of the kinds the scanner's own code finds (findings and `[REDACTED:<slug>]` markers show them);
 * each provider rule names its own kind (rules/).
 */
export const K = {
  awsSecret: 'AWS secret access key',
  pem: 'private key block',
  auth: 'authorization header',
  url: 'URL credentials',
  password: 'password assignment',
  secret: 'secret assignment',
  token: 'token assignment',
  apiKey: 'API key assignment',
  privateKey: 'private key assignment',
  credentials: 'credentials assignment',
} as const;

/** One candidate span: where it is, its kind and masked preview, and its precedence (tier, then order). */
export interface Hit {
  start: number;
  end: number;
  kind: string;
  preview: string;
  tier: number;
  order: number;
  /** The span is a whole double-quoted YAML scalar: redacted as a quoted marker. */
  quoted?: boolean;
}
