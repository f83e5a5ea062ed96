/**
 * Contract: the example values vendors publish in their documentation, which pass the scanner though they have a
 * secret's shape: a note quoting the docs is not a leak. Each is listed by exact value (built from parts, so no
 * whole key-shaped string sits in the source) with where it is published, except jwt.io's sample token, known by
 * its claims (any signature: the site re-signs it). Values holding `EXAMPLE` (AWS's documented key pair
 * `AKIAIOSFODNN7EXAMPLE` / `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`) are placeholders already (values.ts).
 * Pure.
 */

const PUBLISHED = new Set<string>([
  // Stripe API reference and quickstarts: the test-mode keys shown to a reader who is not signed in.
  'sk_' + 'test_' + '4eC39HqLyjWDarjtT1zdp7dc',
  'sk_' + 'test_' + 'BQokikJOvBiI2HlWgH4olfQ2',
  'sk_' + 'test_' + '26PHem9AhJZvU623DfE1x4sd',
  // GitHub Docs, "About authentication to GitHub" (token formats).
  'ghp_' + '16C7e42F292c6912E7710c838347Ae178B4a',
]);

/** jwt.io's sample: `{"sub":"1234567890","name":"John Doe",...,"iat":1516239022}`. */
function isJwtIoSample(s: string): boolean {
  if (!s.startsWith('eyJ')) return false;
  const payload = s.split('.')[1];
  if (!payload) return false;
  const claims = Buffer.from(payload, 'base64url').toString('latin1');
  return claims.includes('"sub":"1234567890"') && claims.includes('"name":"John Doe"') && claims.includes('1516239022');
}

/** True for a value a vendor publishes as a documentation example (see above). */
export function isPublishedExample(s: string): boolean {
  return PUBLISHED.has(s) || isJwtIoSample(s);
}
