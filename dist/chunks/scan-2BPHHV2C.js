import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d}from"./chunk-NFZOGT3I.js";import"./chunk-ZHHVG47C.js";export{b as BASE64_SCAN,c as findSecrets,a as isSecretFilePath,d as redactSecrets};
