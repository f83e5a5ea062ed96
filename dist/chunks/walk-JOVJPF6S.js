import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);
import{a,b,c,d}from"./chunk-JKF2RVQP.js";import"./chunk-22ONTNCK.js";import"./chunk-3UE5LRQW.js";import"./chunk-NAXRFBJN.js";import"./chunk-OM3NNH33.js";import"./chunk-FUAXPYMC.js";import"./chunk-ZHHVG47C.js";export{a as diffTrees,c as mergeBases,b as newCommits,d as objectsToSend};
