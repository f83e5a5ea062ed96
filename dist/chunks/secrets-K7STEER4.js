import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c}from"./chunk-JMY4X6LV.js";import"./chunk-ZHHVG47C.js";export{a as findSecrets,c as isSecretFilePath,b as redactSecrets};
