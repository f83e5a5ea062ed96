import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d}from"./chunk-2MSNNLCI.js";import"./chunk-QVKE2XEP.js";import"./chunk-K3OKSKV7.js";import"./chunk-Y2OVPXMM.js";import"./chunk-OM3NNH33.js";import"./chunk-2PHYWACO.js";import"./chunk-ZHHVG47C.js";export{c as catalogProblems,b as loadCatalog,d as newestFirst,a as readItem};
