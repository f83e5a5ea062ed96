/**
 * Azure: storage account keys in connection strings (`AccountKey=...`) and shared access signatures (the `sig=`
 * of a SAS URL or token). Only the value is the secret.
 */
import { credentialLike } from '../values.js';
import { fill, type TokenRule } from './rule.js';

export const azureRules: TokenRule[] = [
  {
    kind: 'Azure storage account key',
    keywords: ['accountkey='],
    re: /(?<![A-Za-z0-9])AccountKey=([A-Za-z0-9+\/]{40,200}={0,2})/dgi,
    value: 1,
    check: credentialLike,
    samples: [`${fill(86)}==`],
    context: (s) => `DefaultEndpointsProtocol=https;AccountName=notes;AccountKey=${s};EndpointSuffix=core.windows.net`,
  },
  {
    kind: 'Azure SAS signature',
    keywords: ['sig='],
    re: /[?&;]sig=((?:[A-Za-z0-9+\/]|%2[BbFf]){30,300}(?:=|%3[Dd]){0,2})/dg,
    value: 1,
    check: credentialLike,
    samples: [`${fill(20)}%2B${fill(20)}%2F${fill(4)}%3D`],
    context: (s) => `https://notes.blob.core.windows.net/backups/db.tar?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-12-31T00:00:00Z&sig=${s}`,
  },
];
