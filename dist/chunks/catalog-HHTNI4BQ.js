import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d}from"./chunk-2M7MSCNI.js";import"./chunk-2EP4QJTV.js";import"./chunk-UJNA6TNG.js";import"./chunk-N42KQIYO.js";import"./chunk-P56FQ7LC.js";import"./chunk-ZHHVG47C.js";export{c as catalogProblems,b as loadCatalog,d as newestFirst,a as readItem};
