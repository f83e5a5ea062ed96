/**
 * AI model providers: Hugging Face (`hf_` + 34 letters, organization `api_org_`), Replicate (`r8_` + 37), Groq
 * (`gsk_` + 52), Perplexity (`pplx-` + 48), xAI (`xai-` + 80). Anthropic and OpenAI have files of their own.
 */
import { afterPrefix, fill, randomish, type TokenRule } from './rule.js';

const LETTERS = 'AbCdEfGhJkLmNpQrStUvWxYz';

export const aiRules: TokenRule[] = [
  {
    kind: 'Hugging Face token',
    prefix: '(?:hf|api_org)_',
    re: /(?<![A-Za-z0-9_])(?:hf|api_org)_[A-Za-z]{34}(?![A-Za-z0-9_])/g,
    keywords: ['hf_', 'api_org_'],
    // random letters are about half capitals; a camelCase name (`hf_HubDownloadManager...`) far fewer
    check: (s) => { const caps = s.slice(3).replace(/[^A-Z]/g, '').length / (s.length - 3); return caps >= 0.25 && caps <= 0.75; },
    samples: [`hf_${fill(34, LETTERS)}`],
    nearMisses: ['hf_transformers_integration_module_x', 'hf_HubDownloadManagerConfigurationX'],
  },
  { kind: 'Replicate token', prefix: 'r8_', re: /(?<![A-Za-z0-9_])r8_[A-Za-z0-9]{37}(?![A-Za-z0-9_])/g, keywords: ['r8_'], check: afterPrefix(randomish), samples: [`r8_${fill(37)}`], nearMisses: [`r8_${fill(20)}`] },
  { kind: 'Groq API key', prefix: 'gsk_', re: /(?<![A-Za-z0-9_])gsk_[A-Za-z0-9]{52}(?![A-Za-z0-9_])/g, keywords: ['gsk_'], check: randomish, samples: [`gsk_${fill(52)}`], nearMisses: [`gsk_${fill(30)}`] },
  { kind: 'Perplexity API key', prefix: 'pplx-', re: /(?<![A-Za-z0-9_-])pplx-[A-Za-z0-9]{48}(?![A-Za-z0-9_])/g, keywords: ['pplx-'], check: randomish, samples: [`pplx-${fill(48)}`] },
  { kind: 'xAI API key', prefix: 'xai-', re: /(?<![A-Za-z0-9_-])xai-[A-Za-z0-9]{80}(?![A-Za-z0-9_])/g, keywords: ['xai-'], check: randomish, samples: [`xai-${fill(80)}`] },
];
