import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d}from"./chunk-4VF3G346.js";import"./chunk-J7YSDLB4.js";import"./chunk-SX3MN5RI.js";import"./chunk-NAXRFBJN.js";import"./chunk-OM3NNH33.js";import"./chunk-FUAXPYMC.js";import"./chunk-ZHHVG47C.js";export{a as diffTrees,c as mergeBases,b as newCommits,d as objectsToSend};
