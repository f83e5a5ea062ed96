/** Contract: the kinds of secret the scanner names, and the shape of one candidate span (internal to core/secrets). */

/** The human names of secret kinds, as findings and `[REDACTED:<slug>]` markers show them. */
export const K = {
  awsId: 'AWS access key id',
  awsSecret: 'AWS secret access key',
  github: 'GitHub token',
  gitlab: 'GitLab token',
  slack: 'Slack token',
  slackHook: 'Slack webhook URL',
  stripe: 'Stripe secret key',
  openai: 'OpenAI API key',
  anthropic: 'Anthropic API key',
  googleKey: 'Google API key',
  googleOauth: 'Google OAuth client secret',
  npm: 'npm token',
  pypi: 'PyPI token',
  twilio: 'Twilio API key',
  sendgrid: 'SendGrid API key',
  azure: 'Azure storage account key',
  azureSas: 'Azure SAS signature',
  vault: 'HashiCorp Vault token',
  telegram: 'Telegram bot token',
  age: 'age secret key',
  mailgun: 'Mailgun API key',
  heroku: 'Heroku API key',
  jwt: 'JWT',
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
