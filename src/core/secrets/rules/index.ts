/**
 * Contract: every provider rule, in precedence order (the order breaks ties between rules matching one span:
 * Anthropic's `sk-ant-` before OpenAI's `sk-`, Mapbox's `sk.eyJ` before a JWT). A new provider is one file here
 * (its rules with samples and near-misses) and one line below; spec/secrets.md lists the providers.
 */
import { ageRules } from './age.js';
import { aiRules } from './ai.js';
import { airtableRules } from './airtable.js';
import { alibabaRules } from './alibaba.js';
import { anthropicRules } from './anthropic.js';
import { atlassianRules } from './atlassian.js';
import { awsRules } from './aws.js';
import { azureRules } from './azure.js';
import { braintreeRules } from './braintree.js';
import { cloudflareRules } from './cloudflare.js';
import { commandLineRules } from './command-line.js';
import { contentfulRules } from './contentful.js';
import { databricksRules } from './databricks.js';
import { datadogRules } from './datadog.js';
import { devtoolsRules } from './devtools.js';
import { digitaloceanRules } from './digitalocean.js';
import { discordRules } from './discord.js';
import { dopplerRules } from './doppler.js';
import { dropboxRules } from './dropbox.js';
import { facebookRules } from './facebook.js';
import { flyioRules } from './flyio.js';
import { githubRules } from './github.js';
import { gitlabRules } from './gitlab.js';
import { googleRules } from './google.js';
import { grafanaRules } from './grafana.js';
import { herokuRules } from './heroku.js';
import { jwtRules } from './jwt.js';
import { kubernetesRules } from './kubernetes.js';
import { linearRules } from './linear.js';
import { mailchimpRules } from './mailchimp.js';
import { mailgunRules } from './mailgun.js';
import { mapboxRules } from './mapbox.js';
import { messagingRules } from './messaging.js';
import { netlifyRules } from './netlify.js';
import { newrelicRules } from './newrelic.js';
import { notionRules } from './notion.js';
import { oktaRules } from './okta.js';
import { onepasswordRules } from './onepassword.js';
import { openaiRules } from './openai.js';
import { planetscaleRules } from './planetscale.js';
import { postmanRules } from './postman.js';
import { pulumiRules } from './pulumi.js';
import { registryRules } from './registries.js';
import { sentryRules } from './sentry.js';
import { shopifyRules } from './shopify.js';
import { slackRules } from './slack.js';
import { squareRules } from './square.js';
import { stripeRules } from './stripe.js';
import { supabaseRules } from './supabase.js';
import { telegramRules } from './telegram.js';
import { terraformRules } from './terraform.js';
import { vaultRules } from './vault.js';
import { vercelRules } from './vercel.js';
import type { TokenRule } from './rule.js';

export type { TokenRule } from './rule.js';

/** Provider formats: the match (or its `value` group) is the secret. */
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
  ...alibabaRules,
  ...mapboxRules,
  ...grafanaRules,
  ...jwtRules,
  ...vaultRules,
  ...terraformRules,
  ...telegramRules,
  ...ageRules,
  ...mailgunRules,
  ...azureRules,
  ...digitaloceanRules,
  ...shopifyRules,
  ...datadogRules,
  ...herokuRules,
  ...atlassianRules,
  ...databricksRules,
  ...linearRules,
  ...notionRules,
  ...dopplerRules,
  ...postmanRules,
  ...newrelicRules,
  ...sentryRules,
  ...mailchimpRules,
  ...supabaseRules,
  ...planetscaleRules,
  ...squareRules,
  ...facebookRules,
  ...contentfulRules,
  ...pulumiRules,
  ...discordRules,
  ...braintreeRules,
  ...oktaRules,
  ...kubernetesRules,
  ...flyioRules,
  ...vercelRules,
  ...netlifyRules,
  ...cloudflareRules,
  ...airtableRules,
  ...aiRules,
  ...dropboxRules,
  ...onepasswordRules,
  ...devtoolsRules,
  ...commandLineRules,
];
