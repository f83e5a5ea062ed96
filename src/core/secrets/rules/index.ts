/**
 * Contract: every provider rule, in precedence order (the order breaks ties between rules matching one span:
 * Anthropic's `sk-ant-` before OpenAI's `sk-`). A new provider is one file here and one line below.
 */
import { anthropicRules } from './anthropic.js';
import { ageRules } from './age.js';
import { awsRules } from './aws.js';
import { azureRules } from './azure.js';
import { githubRules } from './github.js';
import { gitlabRules } from './gitlab.js';
import { googleRules } from './google.js';
import { jwtRules } from './jwt.js';
import { mailgunRules } from './mailgun.js';
import { messagingRules } from './messaging.js';
import { openaiRules } from './openai.js';
import { registryRules } from './registries.js';
import type { TokenRule } from './rule.js';
import { slackRules } from './slack.js';
import { stripeRules } from './stripe.js';
import { telegramRules } from './telegram.js';
import { vaultRules } from './vault.js';

export type { TokenRule } from './rule.js';

/** Provider formats: the whole match is the secret. */
export const TOKEN_RULES: TokenRule[] = [
  ...anthropicRules,
  ...openaiRules,
  ...githubRules,
  ...gitlabRules,
  ...slackRules,
  ...stripeRules,
  ...googleRules,
  ...registryRules,
  ...messagingRules,
  ...awsRules,
  ...jwtRules,
  ...vaultRules,
  ...telegramRules,
  ...ageRules,
  ...mailgunRules,
  ...azureRules,
];
