import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d,e,f}from"./chunk-FFT2BUEP.js";import"./chunk-ZHHVG47C.js";export{b as BASE64_SCAN,e as findSecrets,d as forgetScans,a as isSecretFilePath,f as redactSecrets,c as rememberScans};
