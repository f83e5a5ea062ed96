import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c}from"./chunk-DOGLB34D.js";import"./chunk-ZHHVG47C.js";export{b as findSecrets,a as isSecretFilePath,c as redactSecrets};
