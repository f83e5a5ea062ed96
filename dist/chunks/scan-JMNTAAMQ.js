import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d,e}from"./chunk-W2XU7TM3.js";import"./chunk-ZHHVG47C.js";export{b as BASE64_SCAN,d as findSecrets,c as forgetScans,a as isSecretFilePath,e as redactSecrets};
