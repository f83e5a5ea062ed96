/**
 * GitLab tokens: personal, project and group access tokens (`glpat-`, 20 characters, or the routable form with
 * a `.` part), deploy (`gldt-`), runner (`glrt-`, `glrtr-`), pipeline trigger (`glptt-`), SCIM (`glsoat-`),
 * CI job (`glcbt-`), feed (`glft-`), incoming mail (`glimt-`), agent (`glagent-`), OAuth application secrets
 * (`gloas-`), feature flag client (`glffct-`), and runner registration tokens (`GR1348941`).
 */
import { afterPrefix, fill, mixed, type TokenRule } from './rule.js';

export const gitlabRules: TokenRule[] = [
  {
    kind: 'GitLab token',
    prefix: 'gl(?:pat|dt|rt|rtr|ptt|soat|cbt|ft|imt|agent|oas|ffct)-',
    re: /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|rtr|ptt|soat|cbt|ft|imt|agent|oas|ffct)-[A-Za-z0-9_-]{20,250}(?:\.[A-Za-z0-9_-]{2,100}){0,2}/g,
    keywords: ['glpat-', 'gldt-', 'glrt-', 'glrtr-', 'glptt-', 'glsoat-', 'glcbt-', 'glft-', 'glimt-', 'glagent-', 'gloas-', 'glffct-'],
    check: mixed,
    samples: [`glpat-${fill(20)}`, `glpat-${fill(20, 'abcdefghjkmnpqrsTUVWXYZ')}`, `glpat-${fill(27)}.01.${fill(9, 'a1b2c3')}`, `glrt-${fill(20)}`],
    nearMisses: [`glpat-${fill(12)}`, 'glpat-the-token-you-were-given'],
  },
  {
    kind: 'GitLab runner registration token',
    re: /(?<![A-Za-z0-9_-])GR1348941[A-Za-z0-9_-]{20}(?![A-Za-z0-9_-])/g,
    keywords: ['gr1348941'],
    check: afterPrefix(mixed, 9),
    samples: [`GR1348941${fill(20)}`],
  },
];
